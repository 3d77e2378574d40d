package dev.loopflow.core.internal.load;

import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Expressions;
import dev.loopflow.core.expr.TemplateSyntaxException;
import dev.loopflow.core.internal.util.Durations;
import dev.loopflow.core.internal.yaml.YNode;
import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Map;

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
