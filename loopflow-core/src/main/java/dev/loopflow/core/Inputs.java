package dev.loopflow.core;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.MissingInputException;
import dev.loopflow.core.error.Names;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.model.InputSpec;
import dev.loopflow.core.model.Workflow;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks and converts run inputs against a workflow's declared inputs. Values given as text (the CLI's
 * {@code --input k=v}) are converted to the declared type; a value that does not convert, or a declared
 * input with no value and no default, is a {@code usage} error that names the input. When the workflow declares
 * inputs, an input it does not declare is a {@code usage} error too (a misspelt name would otherwise be ignored and
 * the declared input take its default); a workflow that declares none takes any inputs, unchanged.
 */
public final class Inputs {
  private Inputs() {}

  public static Map<String, Object> resolve(Workflow wf, Map<String, Object> given) {
    rejectUndeclared(wf, given.keySet());
    Map<String, Object> out = new LinkedHashMap<>(given);
    for (InputSpec spec : wf.inputs().values()) {
      if (!out.containsKey(spec.name())) {
        if (spec.hasDefault()) {
          out.put(spec.name(), spec.defaultValue());
        } else {
          throw new MissingInputException(spec.name(), "missing input '" + spec.name() + "' (" + describe(spec)
              + ")");
        }
        continue;
      }
      out.put(spec.name(), convert(spec, out.get(spec.name())));
    }
    return out;
  }

  private static void rejectUndeclared(Workflow wf, Set<String> names) {
    if (wf.inputs().isEmpty()) {
      return;
    }
    List<String> unknown = new ArrayList<>();
    for (String name : new TreeSet<>(names)) {
      if (!wf.inputs().containsKey(name)) {
        unknown.add("'" + name + "'" + Names.suggest(name, wf.inputs().keySet()));
      }
    }
    if (!unknown.isEmpty()) {
      throw new LoopflowException(ErrorCode.USAGE, "unknown input" + (unknown.size() == 1 ? " " : "s ")
          + String.join(", ", unknown) + "; workflow '" + wf.name() + "' declares "
          + String.join(", ", wf.inputs().keySet()));
    }
  }

  /** Converts text from the command line: declared inputs by type, others as JSON when it parses. */
  public static Object fromText(Workflow wf, String name, String text) {
    InputSpec spec = wf.inputs().get(name);
    if (spec == null) {
      try {
        return Json.parse(text);
      } catch (IllegalArgumentException e) {
        return text;
      }
    }
    return convert(spec, text);
  }

  static Object convert(InputSpec spec, Object value) {
    String type = spec.type();
    if (type == null || value == null) {
      return value;
    }
    String name = spec.name();
    return switch (type) {
      case "string" -> value instanceof String ? value : value instanceof Number || value instanceof Boolean
          ? String.valueOf(value) : fail(name, type, value);
      case "number" -> value instanceof Number ? value : value instanceof String s ? parseNumber(name, s, false)
          : fail(name, type, value);
      case "integer" -> value instanceof Long || value instanceof Integer ? value
          : value instanceof String s ? parseNumber(name, s, true) : fail(name, type, value);
      case "boolean" -> value instanceof Boolean ? value : value instanceof String s
          ? switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "1" -> Boolean.TRUE;
            case "false", "no", "0" -> Boolean.FALSE;
            default -> fail(name, type, value);
          } : fail(name, type, value);
      case "object" -> value instanceof Map ? value : value instanceof String s ? parseJson(name, s, Map.class, type)
          : fail(name, type, value);
      case "array" -> value instanceof List ? value : value instanceof String s ? parseJson(name, s, List.class, type)
          : fail(name, type, value);
      default -> value;
    };
  }

  private static Object parseNumber(String name, String s, boolean integer) {
    try {
      if (integer) {
        return Long.parseLong(s.trim());
      }
      String t = s.trim();
      return t.matches("-?\\d+") ? (Object) Long.parseLong(t) : (Object) Double.parseDouble(t);
    } catch (NumberFormatException e) {
      return fail(name, integer ? "integer" : "number", s);
    }
  }

  private static Object parseJson(String name, String s, Class<?> want, String type) {
    try {
      Object v = Json.parse(s);
      if (want.isInstance(v)) {
        return v;
      }
    } catch (IllegalArgumentException e) {
      // fall through
    }
    return fail(name, type, s);
  }

  private static Object fail(String name, String type, Object value) {
    throw new LoopflowException(ErrorCode.USAGE, "input '" + name + "' must be " + article(type) + " " + type
        + ", got '" + value + "'");
  }

  private static String article(String type) {
    return type.startsWith("a") || type.startsWith("i") || type.startsWith("o") ? "an" : "a";
  }

  private static String describe(InputSpec spec) {
    return spec.type() == null ? "declared" : spec.type();
  }
}
