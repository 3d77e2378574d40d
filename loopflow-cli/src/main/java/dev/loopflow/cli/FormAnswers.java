package dev.loopflow.cli;

import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.AnswerSchema;
import dev.loopflow.core.run.Waiting;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line's side of a paused step's form: its fields in one line for {@code show}, and the values a resume
 * gives ({@code --values JSON}, {@code --value NAME=VALUE} typed by the form). Whether the values fit the form is the
 * engine's rule ({@link AnswerSchema#refusal}); this only reads them.
 */
final class FormAnswers {
  private FormAnswers() {}

  /** The form's fields in one line, or null when the step has no form (or a form this version cannot read). */
  static String fields(Waiting w) {
    AnswerSchema form = form(w);
    return form == null ? null : form.fieldsLine();
  }

  private static AnswerSchema form(Waiting w) {
    if (w == null || w.schema() == null) {
      return null;
    }
    try {
      return AnswerSchema.of(w.schema());
    } catch (IllegalArgumentException notAForm) {
      return null;
    }
  }

  /**
   * The values given: {@code --values} (a JSON object), then each {@code --value NAME=VALUE} typed by the form the run
   * waits for (a later one replaces an earlier value). Null when neither was given; null after printing why when
   * they cannot be read ({@link #failed}).
   */
  static Map<String, Object> values(Waiting w, String json, List<String> pairs, PrintWriter err, boolean[] failed) {
    if (json == null && pairs.isEmpty()) {
      return null;
    }
    Map<String, Object> values = new LinkedHashMap<>();
    if (json != null) {
      Object parsed;
      try {
        parsed = Json.parse(json);
      } catch (IllegalArgumentException e) {
        return fail(err, failed, "--values is not JSON: " + Errors.oneLine(String.valueOf(e.getMessage())));
      }
      if (!(parsed instanceof Map<?, ?> m)) {
        return fail(err, failed, "--values must be a JSON object of field name to value");
      }
      m.forEach((k, v) -> values.put(String.valueOf(k), v));
    }
    if (!pairs.isEmpty()) {
      AnswerSchema form = form(w);
      if (form == null) {
        return fail(err, failed, "--value is typed by the form the run waits for, and it waits for none");
      }
      for (String p : pairs) {
        int eq = p.indexOf('=');
        if (eq <= 0) {
          return fail(err, failed, "--value takes NAME=VALUE, not '" + Errors.oneLine(p) + "'");
        }
        try {
          values.put(p.substring(0, eq), form.typed(p.substring(0, eq), p.substring(eq + 1)));
        } catch (IllegalArgumentException e) {
          return fail(err, failed, "--value: " + e.getMessage());
        }
      }
    }
    return values;
  }

  private static Map<String, Object> fail(PrintWriter err, boolean[] failed, String message) {
    err.println("loopflow: " + message);
    failed[0] = true;
    return null;
  }
}
