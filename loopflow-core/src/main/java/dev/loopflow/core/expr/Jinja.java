package dev.loopflow.core.expr;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.el.JinjavaELContext;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.lib.tag.ForTag;
import com.hubspot.jinjava.tree.ExpressionNode;
import com.hubspot.jinjava.tree.Node;
import com.hubspot.jinjava.tree.TagNode;
import com.hubspot.jinjava.tree.parse.ExpressionToken;
import com.hubspot.jinjava.tree.parse.TagToken;
import jinjava.de.odysseus.el.tree.TreeBuilderException;
import jinjava.javax.el.ELContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/*
 * Design notes.
 *
 * One Jinjava instance is shared (it is thread-safe); every render or evaluation gets its own interpreter and
 * context, so no state leaks between nodes or threads. The configuration is what keeps templates safe:
 *  - nested interpretation is off, so a value inserted by {{ }} is never parsed again (user input holding
 *    "{{ secret }}" stays literal);
 *  - sizes are bounded (JinjaLimits), and a template over a limit fails with a message naming it;
 *  - the resolver is read-only and the scope holds unmodifiable maps and lists, so a template cannot mutate
 *    state ({% do state.update(...) %}, list.append) — those calls fail with an error;
 *  - getClass and friends are not resolvable on our values;
 *  - a missing value stays empty through filters and `+` (see MissingValues).
 * Templates are parsed once at load; the parsed tree is immutable and re-rendered per execution.
 */
final class Jinja {
  static final JinjavaConfig CONFIG = JinjaLimits.apply(JinjavaConfig.newBuilder())
      .withNestedInterpretationEnabled(false)
      .withFailOnUnknownTokens(false)
      .withRestrictedMethods(Set.of("getClass", "wait", "notify", "notifyAll", "hashCode", "clone",
          "put", "putAll", "remove", "clear", "add", "addAll", "set", "append", "extend", "insert", "pop",
          "update", "setdefault", "popitem", "removeAll", "retainAll", "sort", "reverse", "replaceAll", "compute",
          "computeIfAbsent", "computeIfPresent", "merge"))
      .build();
  static final Jinjava JINJAVA = MissingValues.jinjava(CONFIG);

  static {
    JINJAVA.getGlobalContext().registerFunction(JinjaLimits.rangeFunction());
    JINJAVA.getGlobalContext().registerTag(new JinjaLimits.BoundedSetTag());
  }

  private static final Pattern SINGLE_EXPRESSION = Pattern.compile("\\A\\s*\\{\\{-?(.*?)-?}}\\s*\\z", Pattern.DOTALL);

  private Jinja() {}

  static Template compileTemplate(String source) {
    if (source == null) {
      throw new TemplateSyntaxException("template is null", 0);
    }
    RootScanner.Result scan = RootScanner.scan(source);
    boolean literal = !source.contains("{{") && !source.contains("{%") && !source.contains("{#");
    if (literal) {
      return new JinjaTemplate(source, Set.of(), List.of(), true, null, null);
    }
    String single = null;
    Matcher m = SINGLE_EXPRESSION.matcher(source);
    if (m.matches() && !m.group(1).contains("{{") && !m.group(1).contains("}}") && !m.group(1).contains("{%")) {
      single = m.group(1).trim();
    }
    for (String filter : scan.filters()) {
      if (JINJAVA.getGlobalContext().getFilter(filter) == null) {
        throw new TemplateSyntaxException("unknown filter '" + filter + "'", scan.lineOf(filter));
      }
    }
    Node tree = parseChecked(source);
    return new JinjaTemplate(source, scan.roots(), scan.references(), false, single, tree);
  }

  static Condition compileCondition(String expression) {
    if (expression == null || expression.isBlank()) {
      throw new TemplateSyntaxException("condition is empty", 0);
    }
    String expr = expression.trim();
    if (expr.startsWith("{{") && expr.endsWith("}}")) {
      // Tolerate a condition written as a template; it means the same expression.
      expr = expr.substring(2, expr.length() - 2).trim();
    }
    RootScanner.Result scan = RootScanner.scan("{{ " + expr + " }}");
    for (String filter : scan.filters()) {
      if (JINJAVA.getGlobalContext().getFilter(filter) == null) {
        throw new TemplateSyntaxException("unknown filter '" + filter + "'", 1);
      }
    }
    checkExpression(expr);
    return new JinjaCondition(expression, expr, scan.roots(), scan.references());
  }

  static Object evaluate(String expression, Map<String, Object> scope) {
    JinjavaInterpreter interpreter = interpreter(scope);
    JinjavaInterpreter.pushCurrent(interpreter);
    try {
      Object value = interpreter.resolveELExpression(expression, 1);
      failOnErrors(interpreter, expression);
      return JinjaLimits.plain(value);
    } catch (JinjaLimits.LimitException e) {
      throw new TemplateRenderException(e.getMessage() + " (in '" + abbreviate(expression) + "')");
    } finally {
      JinjavaInterpreter.popCurrent();
    }
  }

  static String render(Node tree, String source, Map<String, Object> scope) {
    JinjavaInterpreter interpreter = interpreter(scope);
    JinjavaInterpreter.pushCurrent(interpreter);
    try {
      String out = interpreter.render(tree);
      failOnErrors(interpreter, source);
      return out;
    } catch (TemplateRenderException e) {
      throw e;
    } catch (RuntimeException e) {
      // A tag that fails (a {% set %} over a limit, say) ends the render with an exception instead of an error.
      String limit = JinjaLimits.limitMessage(e);
      throw new TemplateRenderException((limit != null ? limit : cleanMessage(e.getMessage())) + " (in '"
          + abbreviate(source) + "')");
    } finally {
      JinjavaInterpreter.popCurrent();
    }
  }

  static boolean truthy(Object value) {
    if (value == null) {
      return false;
    }
    if (value instanceof Boolean b) {
      return b;
    }
    if (value instanceof Number n) {
      return n.doubleValue() != 0.0;
    }
    if (value instanceof CharSequence s) {
      return !s.isEmpty();
    }
    if (value instanceof java.util.Collection<?> c) {
      return !c.isEmpty();
    }
    if (value instanceof Map<?, ?> map) {
      return !map.isEmpty();
    }
    return true;
  }

  private static JinjavaInterpreter interpreter(Map<String, Object> scope) {
    Context context = new Context(JINJAVA.getGlobalContext(), scope == null ? Map.of() : scope);
    return new JinjavaInterpreter(JINJAVA, context, CONFIG);
  }

  private static void failOnErrors(JinjavaInterpreter interpreter, String source) {
    TemplateError first = null;
    for (TemplateError e : interpreter.getErrors()) {
      if (e.getSeverity() == TemplateError.ErrorType.FATAL) {
        // A limit is named even when an earlier error came first: rendering goes on after most errors, and the
        // limit is what stopped it.
        String limit = JinjaLimits.limitMessage(e);
        if (limit != null) {
          throw new TemplateRenderException(limit + " (in '" + abbreviate(source) + "')");
        }
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw new TemplateRenderException(cleanMessage(first.getMessage()) + " (in '" + abbreviate(source) + "')");
    }
  }

  /**
   * Parses a template and checks the syntax of every expression in it, in every branch, without evaluating
   * anything: loading a workflow must never run a user's expression (an expression can allocate gigabytes or loop
   * for hours). Jinjava parses expressions lazily, when it renders them, so each one is handed to its expression
   * parser here; errors that need a value (an unknown macro, a type error) surface when the template runs.
   */
  private static Node parseChecked(String source) {
    JinjavaInterpreter interpreter = interpreter(new HashMap<>());
    JinjavaInterpreter.pushCurrent(interpreter);
    try {
      Node tree = interpreter.parse(source);
      syntaxErrors(interpreter.getErrors());
      checkNode(tree, elContext(interpreter));
      return tree;
    } finally {
      JinjavaInterpreter.popCurrent();
    }
  }

  /** Checks a condition's syntax without evaluating it (see parseChecked). */
  private static void checkExpression(String expr) {
    JinjavaInterpreter interpreter = interpreter(new HashMap<>());
    JinjavaInterpreter.pushCurrent(interpreter);
    try {
      checkSyntax(expr, 1, elContext(interpreter));
    } finally {
      JinjavaInterpreter.popCurrent();
    }
  }

  private static ELContext elContext(JinjavaInterpreter interpreter) {
    return new JinjavaELContext(interpreter, new JinjavaInterpreterResolver(interpreter));
  }

  private static void checkNode(Node node, ELContext el) {
    if (node instanceof ExpressionNode e) {
      checkSyntax(((ExpressionToken) e.getMaster()).getExpr(), node.getLineNumber(), el);
    } else if (node instanceof TagNode t) {
      checkSyntax(tagExpression(t), node.getLineNumber(), el);
    }
    for (Node child : node.getChildren()) {
      checkNode(child, el);
    }
  }

  /** The expression a tag evaluates, for the tags that hold one; null for the others (checked when they run). */
  private static String tagExpression(TagNode t) {
    String helpers = t.getHelpers() == null ? "" : t.getHelpers().trim();
    return switch (t.getName()) {
      case "if", "elif", "unless", "do", "print", "call" -> helpers;
      // {% set a, b = 1, 2 %}: the tag evaluates the right-hand side as a list
      case "set" -> helpers.indexOf('=') < 0 ? null : "[" + helpers.substring(helpers.indexOf('=') + 1) + "]";
      case "for" -> {
        try {
          yield new ForTag().getLoopVarsAndExpression((TagToken) t.getMaster()).getRight();
        } catch (com.hubspot.jinjava.interpret.TemplateSyntaxException e) {
          throw new TemplateSyntaxException("'{% for" + (helpers.isEmpty() ? "" : " " + helpers)
              + " %}' needs 'NAME in EXPRESSION'",
              Math.max(0, t.getLineNumber()));
        }
      }
      default -> null;
    };
  }

  /** Builds the expression's syntax tree, as rendering would, and stops there. */
  private static void checkSyntax(String expr, int line, ELContext el) {
    if (expr == null || expr.isBlank()) {
      return;
    }
    String e = expr.trim();
    try {
      JINJAVA.getExpressionFactory().createValueExpression(el, "#{" + e + "}", Object.class);
    } catch (TreeBuilderException t) {
      String m = String.valueOf(t.getMessage());
      int at = m.indexOf("': ");
      String reason = at < 0 ? m : m.substring(at + 3);
      throw new TemplateSyntaxException(explainSyntax("Error parsing '" + e + "': " + reason), Math.max(0, line));
    } catch (RuntimeException bindLater) {
      // It parsed; binding its function names (macros are defined while rendering) is left to run time.
    }
  }

  private static void syntaxErrors(List<TemplateError> errors) {
    for (TemplateError e : errors) {
      if (e.getReason() == TemplateError.ErrorReason.SYNTAX_ERROR
          || e.getReason() == TemplateError.ErrorReason.UNKNOWN
          || e.getReason() == TemplateError.ErrorReason.MISSING) {
        String msg = cleanMessage(e.getMessage());
        if (isSyntax(msg)) {
          throw new TemplateSyntaxException(explainSyntax(msg), Math.max(0, e.getLineno()));
        }
      }
    }
  }

  private static boolean isSyntax(String msg) {
    String m = msg.toLowerCase(java.util.Locale.ROOT);
    return m.contains("syntax error") || m.contains("missing end tag") || m.contains("error parsing")
        || m.contains("unclosed") || m.contains("unknown tag") || m.contains("tag not found")
        || m.contains("missing") && m.contains("tag") || m.contains("unexpected");
  }

  private static final Pattern EL_SYNTAX = Pattern.compile(
      "(?s)Error parsing '(.*)': syntax error at position \\d+, encountered '(.*?)', expected (.*)");
  private static final Pattern MISSING_END = Pattern.compile(
      "(?s)(?:Syntax error in '.*?': )?Missing end tag: (\\w+) for tag defined as: (.*)");

  /*
   * Jinjava's parser messages talk about its internals: positions count the "#{" it wraps expressions in,
   * the end of an expression is "encountered '}'", and expected tokens are grammar names. Rephrase the common
   * ones in the user's terms.
   */
  static String explainSyntax(String msg) {
    Matcher el = EL_SYNTAX.matcher(msg);
    if (el.matches()) {
      String expr = el.group(1).strip();
      String found = el.group(2);
      String expected = el.group(3).strip();
      String what = found.equals("}") ? "the expression ends too early" : "unexpected '" + found + "'";
      String want = expected.contains("<IDENTIFIER>") ? ", expected a value"
          : expected.equals("'}'") ? "" : ", expected " + expected.replace("|", " or ");
      return "syntax error in '" + expr + "': " + what + want;
    }
    Matcher end = MISSING_END.matcher(msg);
    if (end.matches()) {
      return "'" + end.group(2).strip() + "' is never closed (missing {% " + end.group(1) + " %})";
    }
    if (msg.equals("Unclosed token")) {
      return "a '{{' or '{%' is never closed (missing '}}' or '%}')";
    }
    if (msg.equals("Missing start tag")) {
      return "an end tag has no matching start tag";
    }
    return msg;
  }

  static String cleanMessage(String message) {
    if (message == null) {
      return "template error";
    }
    int idx = message.indexOf("\nOriginating Exception");
    String m = idx >= 0 ? message.substring(0, idx) : message;
    return m.strip();
  }

  static String abbreviate(String s) {
    String one = s.replace('\n', ' ');
    return one.length() > 80 ? one.substring(0, 77) + "..." : one;
  }
}
