package dev.loopflow.core.time;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses durations written as {@code 30m}, {@code 1h30m}, {@code 500ms}, {@code 10s} or a number of seconds. */
public final class Durations {
  /** The units a duration may be written in (any case). */
  public static final List<String> UNITS = List.of("ms", "s", "m", "h", "d");
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(" + String.join("|", UNITS) + ")");

  private Durations() {}

  /** The duration, or null when the text is not a duration. */
  public static Duration parse(Object value) {
    if (value instanceof Number n) {
      return n.doubleValue() < 0 ? null : Duration.ofMillis(Math.round(n.doubleValue() * 1000));
    }
    if (!(value instanceof String s) || s.isBlank()) {
      return null;
    }
    String text = s.strip().toLowerCase(Locale.ROOT).replace(" ", "");
    if (text.matches("\\d+(\\.\\d+)?")) {
      return Duration.ofMillis(Math.round(Double.parseDouble(text) * 1000));
    }
    Matcher m = PART.matcher(text);
    int pos = 0;
    Duration total = Duration.ZERO;
    while (m.find()) {
      if (m.start() != pos) {
        return null;
      }
      double amount = Double.parseDouble(m.group(1));
      long millis = switch (m.group(2)) {
        case "ms" -> Math.round(amount);
        case "s" -> Math.round(amount * 1000);
        case "m" -> Math.round(amount * 60_000);
        case "h" -> Math.round(amount * 3_600_000);
        default -> Math.round(amount * 86_400_000);
      };
      total = total.plusMillis(millis);
      pos = m.end();
    }
    return pos == text.length() && pos > 0 ? total : null;
  }

  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + "ms";
    }
    if (ms < 60_000) {
      return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
    }
    return (ms / 60_000) + "m" + ((ms / 1000) % 60) + "s";
  }
}
