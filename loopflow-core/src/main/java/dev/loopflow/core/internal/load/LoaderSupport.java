package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Names;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Expressions;
import dev.loopflow.core.expr.TemplateSyntaxException;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.time.Durations;
import dev.loopflow.core.yaml.YNode;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Typed reads of YAML values shared by the workflow-level and node-level parsers. */
final class LoaderSupport {
  private LoaderSupport() {}

  static Integer integer(YNode n, String field, int min, int max, String path, Problems problems) {
    if (n instanceof YNode.YScalar s && (s.value() instanceof Long || s.value() instanceof BigInteger)) {
      BigInteger v = new BigInteger(s.value().toString());
      if (v.compareTo(BigInteger.valueOf(min)) < 0 || v.compareTo(BigInteger.valueOf(max)) > 0) {
        problems.add(n.location(), path, "'" + field + "' must be between " + min + " and " + max + ", found " + v);
        return null;
      }
      return v.intValue();
    }
    if (n instanceof YNode.YScalar s && s.value() instanceof Double d && d == Math.rint(d)) {
      problems.add(n.location(), path, "'" + field + "' must be a whole number, found " + d);
      return null;
    }
    problems.add(n.location(), path, "'" + field + "' must be a whole number, found " + n.describe()
        + (n instanceof YNode.YScalar s && s.value() != null ? " '" + s.value() + "'" : ""));
    return null;
  }

  /** An integer field read against its description's range; {@code field}'s name as written is the spec's. */
  static Integer integer(YNode n, FieldSpec spec, String path, Problems problems) {
    return integer(n, spec.name(), spec.minimumInt(), spec.maximumInt(), path, problems);
  }

  /** The names of an enum's constants as written in YAML: lower case. */
  static List<String> lower(Enum<?>[] values) {
    return Arrays.stream(values).map(v -> v.name().toLowerCase(Locale.ROOT)).toList();
  }

  static Long longValue(YNode n, String field, long min, String path, Problems problems) {
    if (n instanceof YNode.YScalar s && s.value() instanceof Long l) {
      if (l < min) {
        problems.add(n.location(), path, "'" + field + "' must be at least " + min + ", found " + l);
        return null;
      }
      return l;
    }
    problems.add(n.location(), path, "'" + field + "' must be a whole number, found " + n.describe());
    return null;
  }

  static Double number(YNode n, String field, double min, String path, Problems problems) {
    if (n instanceof YNode.YScalar s && s.value() instanceof Number num) {
      double d = num.doubleValue();
      if (d < min) {
        problems.add(n.location(), path, "'" + field + "' must be at least " + min + ", found " + d);
        return null;
      }
      return d;
    }
    problems.add(n.location(), path, "'" + field + "' must be a number, found " + n.describe());
    return null;
  }

  static Duration duration(YNode n, String field, String path, Problems problems) {
    Object v = n instanceof YNode.YScalar s ? s.value() : null;
    Duration d = Durations.parse(v);
    if (d == null || d.isZero() || d.isNegative()) {
      problems.add(n.location(), path, "'" + field + "' must be a positive duration such as 30s, 5m or 1h, found "
          + (v == null ? n.describe() : "'" + v + "'"));
      return null;
    }
    return d;
  }

  static String string(YNode n, String field, String path, Problems problems) {
    if (n instanceof YNode.YScalar s && s.value() != null && !(s.value() instanceof Boolean)) {
      return s.value().toString();
    }
    // YAML reads an unquoted yes/no/on/off/true/false as a boolean.
    problems.add(n.location(), path, "'" + field + "' must be a string, found " + n.describe()
        + (n instanceof YNode.YScalar s && s.value() instanceof Boolean ? " (put it in quotes if you meant the text)"
            : ""));
    return null;
  }

  /** Reports every key of {@code m} not in {@code known}, at the key, as {@code pathPrefix + key}. */
  static void unknownFields(YNode.YMap m, Set<String> known, String pathPrefix, Problems problems) {
    for (YNode.YMap.Entry e : m.entries().values()) {
      if (!known.contains(e.key())) {
        problems.add(e.keyLocation(), pathPrefix + e.key(), "unknown field '" + e.key() + "'"
            + Names.suggest(e.key(), known));
      }
    }
  }

  /** The values of {@code on_exhausted}. */
  static final List<String> ON_EXHAUSTED = lower(Edge.OnExhausted.values());

  /** A loop's {@code on_exhausted}, described; {@code dflt} names its default. */
  static FieldSpec onExhaustedField(String dflt) {
    return FieldSpec.choice("on_exhausted", ON_EXHAUSTED, "What reaching the bound without the exit test means: "
        + "fail the run, or continue with the last pass's result (default " + dflt + ").");
  }

  /** A loop's or loop edge's {@code on_exhausted}: fail or continue; {@code dflt} when absent or invalid. */
  static Edge.OnExhausted onExhausted(YNode n, String path, Edge.OnExhausted dflt, Problems problems) {
    if (n == null) {
      return dflt;
    }
    String v = string(n, "on_exhausted", path, problems);
    if (v == null) {
      return dflt;
    }
    return switch (v) {
      case "fail" -> Edge.OnExhausted.FAIL;
      case "continue" -> Edge.OnExhausted.CONTINUE;
      default -> {
        problems.add(n.location(), path, "unknown on_exhausted '" + v + "'; expected fail or continue"
            + Names.suggest(v, ON_EXHAUSTED));
        yield dflt;
      }
    };
  }

  @SuppressWarnings("unchecked")
  static Condition compileCondition(YNode n, String path, Problems problems, List<TemplateRef> refs) {
    try {
      Condition c;
      if (n instanceof YNode.YScalar s && s.value() instanceof String str) {
        c = Expressions.condition(str);
      } else if (n instanceof YNode.YScalar s && s.value() instanceof Boolean b) {
        c = Expressions.condition(b ? "true" : "false");
      } else if (n instanceof YNode.YMap m) {
        c = Expressions.structured((Map<String, ?>) m.toPlain());
      } else {
        problems.add(n.location(), path, "expected a condition (an expression string or a structured condition), "
            + "found " + n.describe());
        return null;
      }
      refs.add(new TemplateRef(c.references(), n.location(), path, c.source()));
      return c;
    } catch (TemplateSyntaxException e) {
      String src = n instanceof YNode.YScalar s ? String.valueOf(s.value()) : "";
      problems.add(NodeConfigImpl.within(n.location(), e.line(), src), path, "condition error: " + e.getMessage());
      return null;
    }
  }
}
