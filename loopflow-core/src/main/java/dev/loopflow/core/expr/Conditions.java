package dev.loopflow.core.expr;

import dev.loopflow.core.error.Names;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/** Conditions written as a mapping ({@code not}/{@code equals}/{@code var}/{@code value} and friends). */
final class Conditions {
  static final Condition ALWAYS = new Condition() {
    @Override
    public boolean test(Map<String, Object> scope) {
      return true;
    }

    @Override
    public String source() {
      return "true";
    }

    @Override
    public Set<String> roots() {
      return Set.of();
    }

    @Override
    public List<Reference> references() {
      return List.of();
    }
  };

  static final Set<String> OPERATORS = Set.of("not", "and", "or", "equals", "exists", "gt", "lt", "gte", "lte",
      "in", "expr");

  private Conditions() {}

  static Condition compile(Map<String, ?> form) {
    if (form == null || form.size() != 1) {
      throw new TemplateSyntaxException("a structured condition has exactly one operator among "
          + new TreeSet<>(OPERATORS) + ", found " + (form == null ? "nothing" : form.keySet()), 0);
    }
    Map.Entry<String, ?> e = form.entrySet().iterator().next();
    String op = e.getKey();
    Object arg = e.getValue();
    if (!OPERATORS.contains(op)) {
      String hint = Names.suggest(op, OPERATORS);
      throw new TemplateSyntaxException("unknown operator '" + op + "'" + hint + "; expected one of "
          + new TreeSet<>(OPERATORS), 0);
    }
    return switch (op) {
      case "not" -> {
        Condition inner = compileAny(arg, "not");
        yield node("not(" + inner.source() + ")", inner.references(), s -> !inner.test(s));
      }
      case "and", "or" -> {
        if (!(arg instanceof List<?> list) || list.isEmpty()) {
          throw new TemplateSyntaxException("'" + op + "' takes a non-empty list of conditions", 0);
        }
        List<Condition> parts = new ArrayList<>();
        List<Reference> refs = new ArrayList<>();
        for (Object o : list) {
          Condition c = compileAny(o, op);
          parts.add(c);
          refs.addAll(c.references());
        }
        boolean and = op.equals("and");
        yield node(op + parts.stream().map(Condition::source).toList(), refs, s -> {
          for (Condition c : parts) {
            if (c.test(s) != and) {
              return !and;
            }
          }
          return and;
        });
      }
      case "expr" -> {
        if (!(arg instanceof String s)) {
          throw new TemplateSyntaxException("'expr' takes a Jinja expression string", 0);
        }
        yield Expressions.condition(s);
      }
      case "exists" -> {
        String var = arg instanceof String s ? s : operand(arg, op).var;
        yield node("exists(" + var + ")", List.of(reference(var)), s -> Values.path(s, var) != null);
      }
      default -> {
        Operand o = operand(arg, op);
        String src = op + "(" + o.var + ", " + o.value + ")";
        yield node(src, List.of(reference(o.var)), s -> compare(op, Values.path(s, o.var), o.value));
      }
    };
  }

  private static Condition compileAny(Object arg, String parent) {
    if (arg instanceof Map<?, ?> m) {
      @SuppressWarnings("unchecked")
      Map<String, ?> map = (Map<String, ?>) m;
      return compile(map);
    }
    if (arg instanceof String s) {
      return Expressions.condition(s);
    }
    if (arg instanceof Boolean b) {
      return b ? ALWAYS : node("false", List.of(), s -> false);
    }
    throw new TemplateSyntaxException("'" + parent + "' takes a condition (a map or an expression string)", 0);
  }

  private record Operand(String var, Object value) {}

  private static Operand operand(Object arg, String op) {
    if (!(arg instanceof Map<?, ?> m) || !(m.get("var") instanceof String var) || var.isBlank()) {
      throw new TemplateSyntaxException("'" + op + "' takes {var: <path>, value: <literal>}", 0);
    }
    for (Object k : m.keySet()) {
      if (!k.equals("var") && !k.equals("value")) {
        throw new TemplateSyntaxException("'" + op + "' has unknown field '" + k + "' (expected var, value)", 0);
      }
    }
    if (!op.equals("exists") && !m.containsKey("value")) {
      throw new TemplateSyntaxException("'" + op + "' needs a 'value'", 0);
    }
    return new Operand(var, m.get("value"));
  }

  /** A {@code var} path as a reference: its parts up to the first list index (which Values.path also accepts). */
  private static Reference reference(String var) {
    String[] parts = var.split("\\.");
    List<String> fields = new ArrayList<>();
    for (int i = 1; i < parts.length && !parts[i].matches("\\d+"); i++) {
      fields.add(parts[i]);
    }
    return new Reference(parts[0], fields, false);
  }

  static boolean compare(String op, Object actual, Object expected) {
    return switch (op) {
      case "equals" -> looselyEqual(actual, expected);
      case "in" -> expected instanceof Collection<?> c
          ? c.stream().anyMatch(x -> looselyEqual(actual, x))
          : actual != null && expected != null && String.valueOf(expected).contains(String.valueOf(actual));
      case "gt", "lt", "gte", "lte" -> {
        BigDecimal a = number(actual);
        BigDecimal b = number(expected);
        if (a == null || b == null) {
          yield false;
        }
        int cmp = a.compareTo(b);
        yield switch (op) {
          case "gt" -> cmp > 0;
          case "lt" -> cmp < 0;
          case "gte" -> cmp >= 0;
          default -> cmp <= 0;
        };
      }
      default -> throw new IllegalStateException(op);
    };
  }

  private static boolean looselyEqual(Object a, Object b) {
    if (a instanceof Number && b instanceof Number) {
      return number(a).compareTo(number(b)) == 0;
    }
    return Objects.equals(Values.plain(a), Values.plain(b));
  }

  private static BigDecimal number(Object o) {
    if (o instanceof Number n) {
      return new BigDecimal(n.toString());
    }
    if (o instanceof String s) {
      try {
        return new BigDecimal(s.trim());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  private static Condition node(String source, List<Reference> references,
      Predicate<Map<String, Object>> p) {
    Set<String> r = new LinkedHashSet<>();
    references.forEach(ref -> r.add(ref.root()));
    List<Reference> refs = List.copyOf(references);
    return new Condition() {
      @Override
      public boolean test(Map<String, Object> scope) {
        return p.test(scope);
      }

      @Override
      public String source() {
        return source;
      }

      @Override
      public Set<String> roots() {
        return Collections.unmodifiableSet(r);
      }

      @Override
      public List<Reference> references() {
        return refs;
      }

      @Override
      public String toString() {
        return source;
      }
    };
  }
}
