package dev.loopflow.core.yaml;

import dev.loopflow.core.error.Location;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A YAML value with its location. Maps keep key order and each key's own location. */
public sealed interface YNode {
  Location location();

  /** The plain Java value (String, Long/Double/BigInteger, Boolean, null, List, Map) without locations. */
  Object toPlain();

  /** A short name of the YAML type for messages: "a mapping", "a list", "a string", ... */
  String describe();

  record YMap(Location location, Map<String, Entry> entries) implements YNode {
    public record Entry(String key, Location keyLocation, YNode value) {}

    public YNode get(String key) {
      Entry e = entries.get(key);
      return e == null ? null : e.value();
    }

    public boolean has(String key) {
      return entries.containsKey(key);
    }

    @Override
    public Object toPlain() {
      Map<String, Object> out = new LinkedHashMap<>();
      entries.forEach((k, e) -> out.put(k, e.value().toPlain()));
      return out;
    }

    @Override
    public String describe() {
      return "a mapping";
    }
  }

  record YSeq(Location location, List<YNode> items) implements YNode {
    @Override
    public Object toPlain() {
      List<Object> out = new ArrayList<>(items.size());
      for (YNode n : items) {
        out.add(n.toPlain());
      }
      return out;
    }

    @Override
    public String describe() {
      return "a list";
    }
  }

  /** A scalar; {@code value} is String, Long, Double, java.math.BigInteger/BigDecimal, Boolean or null. */
  record YScalar(Location location, Object value, boolean blockStyle) implements YNode {
    @Override
    public Object toPlain() {
      return value;
    }

    @Override
    public String describe() {
      if (value == null) {
        return "null";
      }
      if (value instanceof String) {
        return "a string";
      }
      if (value instanceof Boolean) {
        return "a boolean";
      }
      return "a number";
    }
  }
}
