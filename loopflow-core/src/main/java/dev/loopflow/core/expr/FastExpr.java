package dev.loopflow.core.expr;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/*
 * Design notes.
 *
 * Loop conditions and edge conditions are tested on every pass, and a Jinjava evaluation builds an interpreter,
 * a context and an EL resolver each time (about 90% of its cost, whatever the expression). Most conditions are
 * tiny: `state.count < input.n`, `not state.approved`, `review.passed == true and state.tries < 3`. This class
 * evaluates that subset directly, and must give exactly Jinjava's answer whenever it answers at all:
 *
 *  - Grammar: `or`, `and`, `not` (unary, binding tighter than a comparison: `not a == b` is `(not a) == b`, as
 *    Jinjava reads it), parentheses, one comparison (== != < <= > >= in) between two operands; an
 *    operand is a dotted path (`a.b.c`), an integer or decimal literal (with an optional minus), a quoted string
 *    without escapes, or true/false. Anything else (filters, calls, indexing, arithmetic, `is`, chained
 *    comparisons) is not compiled here: compile() returns null and the condition always goes to Jinjava.
 *  - Evaluation answers only when every value it touches is of a type whose Jinjava semantics it reproduces:
 *    paths resolve through Map entries that exist and are not null; comparisons are number/number
 *    (integral: as longs; otherwise as doubles, as EL coerces), string/string (== and != only) or
 *    boolean/boolean (== and != only), or `in` between two strings (text within text: `'APPROVED' in review.text`);
 *    `and`, `or`, `not` and the final result take booleans only. Anything else
 *    (a missing key, null, a list, BigDecimal, mixed types) returns UNKNOWN and the caller asks Jinjava, which
 *    then decides, including the cases where it would coerce or raise.
 *  - `and`/`or` short-circuit as EL does, so an operand that would be UNKNOWN is not looked at when the left side
 *    decides.
 * FastExprTest checks these answers against Jinjava on generated expressions and scopes.
 */
final class FastExpr {
  /** Returned by {@link #eval} when the fast path cannot be sure; the caller evaluates with Jinjava. */
  static final Object UNKNOWN = new Object();

  private sealed interface Ex permits Path, Lit, Not, And, Or, Cmp {}

  private record Path(String[] parts) implements Ex {}

  private record Lit(Object value) implements Ex {}

  private record Not(Ex inner) implements Ex {}

  private record And(Ex left, Ex right) implements Ex {}

  private record Or(Ex left, Ex right) implements Ex {}

  private record Cmp(String op, Ex left, Ex right) implements Ex {}

  private final Ex root;

  private FastExpr(Ex root) {
    this.root = root;
  }

  /**
   * The most tokens an expression in the subset has. Parsing and evaluating recurse once per level of nesting, and
   * a chain of `and`/`or` nests: a longer expression (written by an attacker to exhaust the stack) is left to
   * Jinjava and its limits. Real conditions have a few dozen tokens.
   */
  static final int MAX_TOKENS = 256;

  /** The compiled expression, or null when it uses anything outside the subset. */
  static FastExpr compile(String expression) {
    try {
      List<String> tokens = tokenize(expression);
      if (tokens.size() > MAX_TOKENS || Jinja.bracketDepth(expression) > JinjaLimits.MAX_BRACKETS) {
        return null; // Jinja's compile refuses what nests too deeply, with its message: one rule, one place
      }
      Parser p = new Parser(tokens);
      Ex e = p.or();
      if (p.pos != p.tokens.size()) {
        return null;
      }
      return new FastExpr(e);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The parts of {@code expression} when it is exactly a dotted path ({@code a.b.c}), else null. */
  static String[] pathOf(String expression) {
    FastExpr f = compile(expression);
    return f != null && f.root instanceof Path p ? p.parts() : null;
  }

  /** The value at {@code parts} through existing, non-null map entries, or {@link #UNKNOWN}. */
  static Object resolve(String[] parts, Map<String, Object> scope) {
    Object v = scope.get(parts[0]);
    for (int i = 1; i < parts.length && v != null; i++) {
      if (!(v instanceof Map<?, ?> m)) {
        return UNKNOWN;
      }
      v = m.get(parts[i]);
    }
    return v == null ? UNKNOWN : v;
  }

  /**
   * The expression's value as Jinjava's evaluation gives it (a transform's {@code expression}, a workflow's
   * {@code output: "{{ node.output }}"}), or {@link #UNKNOWN}: answered only for a true or false, and for a path to a
   * String, Integer or Long, which Jinjava hands back as they are. Anything else (a map, a list, another number, a
   * literal alone) is Jinjava's.
   */
  Object value(Map<String, Object> scope) {
    Object v = eval(root, scope);
    if (v instanceof Boolean) {
      return v;
    }
    return root instanceof Path && (v instanceof String || v instanceof Integer || v instanceof Long) ? v : UNKNOWN;
  }

  /** True or false, or {@link #UNKNOWN}. */
  Object test(Map<String, Object> scope) {
    Object v = eval(root, scope);
    return v instanceof Boolean ? v : UNKNOWN;
  }

  private static Object eval(Ex e, Map<String, Object> scope) {
    return switch (e) {
      case Lit l -> l.value();
      case Path p -> resolve(p.parts(), scope);
      case Not n -> {
        Object v = eval(n.inner(), scope);
        yield v instanceof Boolean b ? Boolean.valueOf(!b) : UNKNOWN;
      }
      case And a -> {
        Object l = eval(a.left(), scope);
        if (!(l instanceof Boolean lb)) {
          yield UNKNOWN;
        }
        if (!lb) {
          yield Boolean.FALSE;
        }
        Object r = eval(a.right(), scope);
        yield r instanceof Boolean ? r : UNKNOWN;
      }
      case Or o -> {
        Object l = eval(o.left(), scope);
        if (!(l instanceof Boolean lb)) {
          yield UNKNOWN;
        }
        if (lb) {
          yield Boolean.TRUE;
        }
        Object r = eval(o.right(), scope);
        yield r instanceof Boolean ? r : UNKNOWN;
      }
      case Cmp c -> compare(c.op(), eval(c.left(), scope), eval(c.right(), scope));
    };
  }

  private static Object compare(String op, Object a, Object b) {
    if (a == UNKNOWN || b == UNKNOWN) {
      return UNKNOWN;
    }
    if (a instanceof Number x && b instanceof Number y) {
      if (!simple(x) || !simple(y)) {
        return UNKNOWN;
      }
      int c;
      if (integral(x) && integral(y)) {
        c = Long.compare(x.longValue(), y.longValue());
      } else {
        double dx = x.doubleValue();
        double dy = y.doubleValue();
        // Jinjava compares -0.0 and 0.0 as different; NaN has no order. Both are left to it.
        if (Double.isNaN(dx) || Double.isNaN(dy) || isNegativeZero(dx) || isNegativeZero(dy)) {
          return UNKNOWN;
        }
        c = Double.compare(dx, dy);
      }
      return switch (op) {
        case "==" -> c == 0;
        case "!=" -> c != 0;
        case "<" -> c < 0;
        case "<=" -> c <= 0;
        case ">" -> c > 0;
        case ">=" -> c >= 0;
        default -> UNKNOWN;
      };
    }
    if (op.equals("in")) {
      // Text in text only: membership in a list or a map, and everything else, is Jinjava's.
      return a instanceof String x && b instanceof String y ? Boolean.valueOf(y.contains(x)) : UNKNOWN;
    }
    if (a instanceof String x && b instanceof String y || a instanceof Boolean x2 && b instanceof Boolean y2) {
      return switch (op) {
        case "==" -> a.equals(b);
        case "!=" -> !a.equals(b);
        default -> UNKNOWN;
      };
    }
    return UNKNOWN;
  }

  private static boolean isNegativeZero(double d) {
    return d == 0.0 && Double.doubleToRawLongBits(d) != 0L;
  }

  private static boolean simple(Number n) {
    return n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte
        || n instanceof Double || n instanceof Float;
  }

  private static boolean integral(Number n) {
    return n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte;
  }

  // ---------------------------------------------------------------------------------------------------------

  private static final Set<String> KEYWORDS = Set.of("and", "or", "not", "true", "false",
      "True", "False", "in", "is", "if", "else", "none", "None", "null", "empty", "div", "mod", "eq", "ne", "lt",
      "gt", "le", "ge", "instanceof", "TRUE", "FALSE");

  /** Tokens: identifiers/keywords, numbers, strings (kept with their quote), operators, '.', '(' and ')'. */
  private static List<String> tokenize(String s) {
    List<String> out = new ArrayList<>();
    int i = 0;
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        i++;
      } else if (Character.isLetter(c) || c == '_') {
        int j = i + 1;
        while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) {
          j++;
        }
        out.add(s.substring(i, j));
        i = j;
      } else if (c >= '0' && c <= '9') {
        int j = i + 1;
        while (j < n && (Character.isDigit(s.charAt(j)) || s.charAt(j) == '.')) {
          j++;
        }
        if (j < n && (Character.isLetter(s.charAt(j)) || s.charAt(j) == '_')) {
          throw new IllegalArgumentException("number followed by a name");
        }
        out.add(s.substring(i, j));
        i = j;
      } else if (c == '\'' || c == '"') {
        int j = s.indexOf(c, i + 1);
        if (j < 0 || s.substring(i + 1, j).indexOf('\\') >= 0) {
          throw new IllegalArgumentException("string");
        }
        out.add(s.substring(i, j + 1));
        i = j + 1;
      } else if (i + 1 < n && (s.startsWith("==", i) || s.startsWith("!=", i) || s.startsWith("<=", i)
          || s.startsWith(">=", i))) {
        out.add(s.substring(i, i + 2));
        i += 2;
      } else if (c == '<' || c == '>' || c == '.' || c == '(' || c == ')' || c == '-') {
        out.add(String.valueOf(c));
        i++;
      } else {
        throw new IllegalArgumentException("unsupported character " + c);
      }
    }
    return out;
  }

  private static final class Parser {
    final List<String> tokens;
    int pos;

    Parser(List<String> tokens) {
      this.tokens = tokens;
    }

    String peek() {
      return pos < tokens.size() ? tokens.get(pos) : null;
    }

    Ex or() {
      Ex left = and();
      while ("or".equals(peek())) {
        pos++;
        left = new Or(left, and());
      }
      return left;
    }

    Ex and() {
      Ex left = comparison();
      while ("and".equals(peek())) {
        pos++;
        left = new And(left, comparison());
      }
      return left;
    }

    /**
     * `not` is unary and binds tighter than a comparison, as in Jinjava's EL: `not a == b` is `(not a) == b`, and
     * `not (a == b)` needs its parentheses.
     */
    Ex not() {
      if ("not".equals(peek())) {
        pos++;
        return new Not(not());
      }
      return operand();
    }

    Ex comparison() {
      Ex left = not();
      String op = peek();
      if (op != null && (op.equals("==") || op.equals("!=") || op.equals("<") || op.equals("<=") || op.equals(">")
          || op.equals(">=") || op.equals("in"))) {
        pos++;
        Ex right = not();
        String next = peek();
        if (next != null && (next.equals("==") || next.equals("!=") || next.equals("<") || next.equals("<=")
            || next.equals(">") || next.equals(">=") || next.equals("in"))) {
          throw new IllegalArgumentException("chained comparison");
        }
        return new Cmp(op, left, right);
      }
      return left;
    }

    Ex operand() {
      String t = peek();
      if (t == null) {
        throw new IllegalArgumentException("end of expression");
      }
      pos++;
      if (t.equals("(")) {
        Ex inner = or();
        if (!")".equals(peek())) {
          throw new IllegalArgumentException("unclosed parenthesis");
        }
        pos++;
        return inner;
      }
      if (t.equals("true")) {
        return new Lit(Boolean.TRUE);
      }
      if (t.equals("false")) {
        return new Lit(Boolean.FALSE);
      }
      boolean negative = t.equals("-");
      if (negative) {
        t = peek();
        if (t == null || !(t.charAt(0) >= '0' && t.charAt(0) <= '9')) {
          throw new IllegalArgumentException("unary minus");
        }
        pos++;
        t = "-" + t;
      }
      char c = negative ? '0' : t.charAt(0);
      if (c == '\'' || c == '"') {
        return new Lit(t.substring(1, t.length() - 1));
      }
      if (c >= '0' && c <= '9') {
        if (t.indexOf('.') < 0) {
          if (t.length() > 17) {
            throw new IllegalArgumentException("large integer");
          }
          return new Lit(Long.parseLong(t));
        }
        if (t.indexOf('.') != t.lastIndexOf('.') || t.endsWith(".")) {
          throw new IllegalArgumentException("number");
        }
        return new Lit(Double.parseDouble(t));
      }
      if (KEYWORDS.contains(t) || !(Character.isLetter(c) || c == '_')) {
        throw new IllegalArgumentException("unsupported token " + t);
      }
      List<String> parts = new ArrayList<>();
      parts.add(t);
      while (".".equals(peek())) {
        pos++;
        String name = peek();
        if (name == null || KEYWORDS.contains(name) || !(Character.isLetter(name.charAt(0))
            || name.charAt(0) == '_')) {
          throw new IllegalArgumentException("path");
        }
        pos++;
        parts.add(name);
      }
      if ("(".equals(peek())) {
        throw new IllegalArgumentException("call");
      }
      return new Path(parts.toArray(String[]::new));
    }
  }
}
