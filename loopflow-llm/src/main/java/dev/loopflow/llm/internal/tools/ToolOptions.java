package dev.loopflow.llm.internal.tools;

import dev.loopflow.core.expr.Values;
import dev.loopflow.core.spi.NodeConfig;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks the options of a {@code tools:} or {@code mcp:} entry, reporting each problem through the node's config at
 * the field, prefixed with the entry ({@code tools[2]: ...}). Each check returns null (or false) after reporting.
 */
final class ToolOptions {
  /** The longest timeout an option may give. */
  static final Duration MAX_TIMEOUT = Duration.ofHours(1);

  private ToolOptions() {}

  static boolean known(NodeConfig cfg, Map<?, ?> options, Set<String> allowed, String what, String at) {
    return known(cfg, options, allowed, what, at, "tools");
  }

  static boolean known(NodeConfig cfg, Map<?, ?> options, Set<String> allowed, String what, String at,
      String field) {
    for (Object k : options.keySet()) {
      if (!allowed.contains(String.valueOf(k))) {
        cfg.error(field, at + "unknown option '" + k + "' for " + what + (allowed.isEmpty() ? " (it takes none)"
            : "; expected " + new TreeSet<>(allowed)));
        return false;
      }
    }
    return true;
  }

  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

  static Duration duration(NodeConfig cfg, Object v, Duration fallback, String what, String at) {
    return duration(cfg, v, fallback, what, at, "tools");
  }

  /** A timeout written as a number of seconds or as 500ms, 30s, 2m, 1h, 1m30s; between 1 ms and an hour. */
  static Duration duration(NodeConfig cfg, Object v, Duration fallback, String what, String at,
      String field) {
    if (v == null) {
      return fallback;
    }
    Duration d = null;
    if (v instanceof Number n && n.doubleValue() > 0) {
      d = Duration.ofMillis(Math.round(n.doubleValue() * 1000));
    } else if (v instanceof String s) {
      Matcher m = DURATION.matcher(s.strip().toLowerCase(Locale.ROOT));
      int pos = 0;
      Duration total = Duration.ZERO;
      while (m.find() && m.start() == pos) {
        double amount = Double.parseDouble(m.group(1));
        total = total.plusMillis(Math.round(amount * switch (m.group(2)) {
          case "ms" -> 1;
          case "s" -> 1000;
          case "m" -> 60_000;
          default -> 3_600_000;
        }));
        pos = m.end();
      }
      d = pos > 0 && pos == s.strip().length() ? total : null;
    }
    if (d == null || d.isZero() || d.compareTo(MAX_TIMEOUT) > 0) {
      cfg.error(field, at + what + " must be a duration between 1ms and 1h (e.g. 30s, 2m), found " + describe(v));
      return null;
    }
    return d;
  }

  static Integer positive(NodeConfig cfg, Object v, int fallback, int max, String what, String at) {
    if (v == null) {
      return fallback;
    }
    if (v instanceof Integer || v instanceof Long) {
      long n = ((Number) v).longValue();
      if (n >= 1 && n <= max) {
        return (int) n;
      }
    }
    cfg.error("tools", at + what + " must be a whole number from 1 to " + max + ", found " + describe(v));
    return null;
  }

  static String describe(Object v) {
    return Values.describe(v);
  }

}
