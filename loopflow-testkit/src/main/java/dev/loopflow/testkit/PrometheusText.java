package dev.loopflow.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Prometheus text-format page (what {@code GET /metrics} serves), read for tests: the {@code # TYPE} of each
 * family and the values of its samples, selected by labels.
 */
public record PrometheusText(String text) {
  /** A sample line: name, labels (quoted values may hold any escaped character, braces too), value. */
  private static final Pattern SAMPLE = Pattern.compile(
      "^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(?:[^\"}]|\"(?:[^\"\\\\]|\\\\.)*\")*\\})? (\\S+)$");

  /** The {@code # TYPE} of the family {@code name}, or null. */
  public String type(String name) {
    for (String line : text.split("\n")) {
      if (line.startsWith("# TYPE " + name + " ")) {
        return line.substring(("# TYPE " + name + " ").length()).trim();
      }
    }
    return null;
  }

  /** The sum of the samples named {@code name} whose labels contain every one of {@code labels} ({@code k="v"}). */
  public double value(String name, String... labels) {
    List<Double> found = values(name, labels);
    if (found.isEmpty()) {
      throw new AssertionError("no sample " + name + " with " + List.of(labels) + " in\n" + text);
    }
    return found.stream().mapToDouble(Double::doubleValue).sum();
  }

  public List<Double> values(String name, String... labels) {
    List<Double> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches() || !m.group(1).equals(name)) {
        continue;
      }
      String ls = m.group(2) == null ? "" : m.group(2);
      boolean all = true;
      for (String l : labels) {
        all &= ls.contains(l);
      }
      if (all) {
        out.add(Double.parseDouble(m.group(3)));
      }
    }
    return out;
  }
}
