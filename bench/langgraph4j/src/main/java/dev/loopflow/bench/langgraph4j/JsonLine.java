package dev.loopflow.bench.langgraph4j;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One JSON object, written on one line. Hand-written because the runner prints a handful of flat fields; a JSON
 * library would only add start-up time to W6.
 */
final class JsonLine {

  // 0.1 µs resolution for milliseconds, so sub-millisecond repetitions (W1 at N = 10) keep their digits.
  private static final int DECIMALS = 4;

  private final Map<String, Object> fields = new LinkedHashMap<>();

  JsonLine put(String name, Object value) {
    fields.put(name, value);
    return this;
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    write(fields, out);
    return out.toString();
  }

  private static void write(Object value, StringBuilder out) {
    switch (value) {
      case null -> out.append("null");
      case String text -> quote(text, out);
      case Boolean bool -> out.append(bool);
      case Integer number -> out.append(number);
      case Long number -> out.append(number);
      case Double number -> {
        if (number.isNaN() || number.isInfinite()) {
          out.append("null");
        } else {
          // Plain notation: Double.toString would print 1.0E-4, which some readers mis-handle.
          out.append(BigDecimal.valueOf(number).setScale(DECIMALS, RoundingMode.HALF_UP).stripTrailingZeros()
              .toPlainString());
        }
      }
      case Map<?, ?> map -> {
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
          if (!first) {
            out.append(',');
          }
          first = false;
          quote(String.valueOf(entry.getKey()), out);
          out.append(':');
          write(entry.getValue(), out);
        }
        out.append('}');
      }
      default -> throw new IllegalArgumentException("no JSON form for " + value.getClass().getName());
    }
  }

  private static void quote(String text, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
