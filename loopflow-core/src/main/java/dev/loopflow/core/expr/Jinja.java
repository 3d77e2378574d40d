package dev.loopflow.core.expr;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.el.JinjavaELContext;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.MissingEndTagException;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.tag.ForTag;
import com.hubspot.jinjava.tree.ExpressionNode;
import com.hubspot.jinjava.tree.Node;
import com.hubspot.jinjava.tree.TagNode;
import com.hubspot.jinjava.tree.parse.ExpressionToken;
import com.hubspot.jinjava.tree.parse.TagToken;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jinjava.de.odysseus.el.tree.TreeBuilderException;
import jinjava.javax.el.ELContext;

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
      refuseReRendering(filter, scan.lineOf(filter));
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
    String expr = JinjaCondition.expressionOf(expression);
    RootScanner.Result scan = RootScanner.scan("{{ " + expr + " }}");
    for (String filter : scan.filters()) {
      refuseReRendering(filter, 1);
      if (JINJAVA.getGlobalContext().getFilter(filter) == null) {
        throw new TemplateSyntaxException("unknown filter '" + filter + "'", 1);
      }
    }
    checkExpression(expr);
    return new JinjaCondition(expression, expr, scan.roots(), scan.references());
  }

  /** Filters that evaluate their input as a template: a value is never evaluated again, so they are refused. */
  private static final Set<String> RE_RENDERING_FILTERS = Set.of("render");
  /** Tags that render another template, chosen by a value or not: a template is only ever its own text. */
  private static final Set<String> OTHER_TEMPLATE_TAGS = Set.of("include", "import", "from", "extends");

  private static void refuseReRendering(String filter, int line) {
    if (RE_RENDERING_FILTERS.contains(filter)) {
      throw new TemplateSyntaxException("the '" + filter + "' filter is not available: a value is never evaluated "
          + "again as a template", line);
    }
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
    } catch (JinjaLimits.Stopped e) {
      throw new TemplateRenderException(e.getMessage());
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
    } catch (JinjaLimits.Stopped e) {
      throw new TemplateRenderException(e.getMessage());
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
    if (value instanceof Collection<?> c) {
      return !c.isEmpty();
    }
    if (value instanceof Map<?, ?> map) {
      return !map.isEmpty();
    }
    return true;
  }

  private static JinjavaInterpreter interpreter(Map<String, Object> scope) {
    Context context = new Context(JINJAVA.getGlobalContext(), scope == null ? Map.of() : scope);
    return new JinjavaInterpreter(JINJAVA, context, CONFIG) {
      // What a {{ }} inside longer text prints. A map or list prints as JSON, as `| tojson` writes it, not as
      // Java's {k=v} form (which no reader of a prompt or a command expects, and which printed "null" for a
      // missing entry); everything else as Jinjava prints it.
      /*
       * Rendering asks for its context at every step: each loop iteration, each variable, each tag. A render whose
       * node was cancelled or timed out (its thread interrupted) stops there, instead of keeping a core busy until
       * the template ends.
       */
      @Override
      public Context getContext() {
        JinjaLimits.stopIfInterrupted();
        return super.getContext();
      }

      @Override
      public String getAsString(Object value) {
        if (!isStructured(value) && value != null && JinjaLimits.data(value) == null) {
          return ""; // an object of the engine reached by a lookup is not a value (see JinjaLimits.data)
        }
        return isStructured(value) ? structuredText(value) : super.getAsString(value);
      }
    };
  }

  /** The text of a map, list or array printed into a template: compact JSON, as {@code | tojson} writes it. */
  static String structuredText(Object value) {
    return Json.compact(JinjaLimits.plain(value));
  }

  /** A map, a list or another collection, or an array: values printed into text as JSON. */
  static boolean isStructured(Object value) {
    return value instanceof Map<?, ?> || value instanceof Collection<?>
        || value != null && value.getClass().isArray();
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
      checkNode(tree, elContext(interpreter), 0);
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

  private static void checkNode(Node node, ELContext el, int depth) {
    if (depth > JinjaLimits.MAX_TAG_NESTING) {
      throw new TemplateSyntaxException("tags nest more than " + JinjaLimits.MAX_TAG_NESTING
          + " levels deep here; split the template", Math.max(0, node.getLineNumber()));
    }
    if (node instanceof ExpressionNode e) {
      ExpressionToken token = (ExpressionToken) e.getMaster();
      if (token.getImage() != null && MINUS_AFTER_SPACE.matcher(token.getImage()).lookingAt()) {
        throw new TemplateSyntaxException("a '-' after '{{ ' is read as whitespace control, not as a minus sign, "
            + "so the value would lose its sign: write (-x) or 0 - x for a negative, {{- x }} to trim",
            node.getLineNumber());
      }
      checkSyntax(token.getExpr(), node.getLineNumber(), el);
    } else if (node instanceof TagNode t) {
      if (OTHER_TEMPLATE_TAGS.contains(t.getName())) {
        throw new TemplateSyntaxException("{% " + t.getName() + " %} is not available: a template is only its own "
            + "text, and never renders another template or a value as one", Math.max(0, node.getLineNumber()));
      }
      checkSyntax(tagExpression(t), node.getLineNumber(), el);
    }
    for (Node child : node.getChildren()) {
      checkNode(child, el, node instanceof TagNode ? depth + 1 : depth);
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
    if (bracketDepth(e) > JinjaLimits.MAX_BRACKETS) {
      throw new TemplateSyntaxException("the expression nests brackets more than " + JinjaLimits.MAX_BRACKETS
          + " levels deep ('" + abbreviate(e) + "')", Math.max(0, line));
    }
    try {
      JINJAVA.getExpressionFactory().createValueExpression(el, "#{" + e + "}", Object.class);
    } catch (TreeBuilderException t) {
      throw new TemplateSyntaxException(explainExpression(e, t), Math.max(0, line));
    } catch (StackOverflowError deep) {
      // The expression parser recurses once per level of nesting ('((((...', 'not not not ...'): a workflow must
      // not be able to end the loading process with it, and its author gets the line instead.
      throw new TemplateSyntaxException("the expression nests too deeply to be read ('" + abbreviate(e) + "')",
          Math.max(0, line));
    } catch (RuntimeException bindLater) {
      // It parsed; binding its function names (macros are defined while rendering) is left to run time.
    }
  }

  /**
   * The deepest nesting of (), [] and {} in an expression, outside string literals. Unbalanced brackets are left to
   * the parser, which names them.
   */
  static int bracketDepth(String e) {
    int depth = 0;
    int max = 0;
    char quote = 0;
    for (int i = 0; i < e.length(); i++) {
      char c = e.charAt(i);
      if (quote != 0) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '(' || c == '[' || c == '{') {
        max = Math.max(max, ++depth);
      } else if (c == ')' || c == ']' || c == '}') {
        depth = Math.max(0, depth - 1);
      }
    }
    return max;
  }

  /**
   * Fails on the first syntax error the parser recorded. Every problem Jinjava's parser finds in a template's
   * structure (an unknown or unclosed tag, a missing or mismatched end tag, an unclosed '{{' or comment) is recorded
   * with reason SYNTAX_ERROR, some of them as warnings only; the parser records nothing else.
   */
  private static void syntaxErrors(List<TemplateError> errors) {
    for (TemplateError e : errors) {
      if (e.getReason() == TemplateError.ErrorReason.SYNTAX_ERROR) {
        throw new TemplateSyntaxException(explainSyntax(e), Math.max(0, e.getLineno()));
      }
    }
  }

  /*
   * Jinjava's parser messages talk about its internals: positions count the "#{" it wraps expressions in,
   * the end of an expression is "encountered '}'", and expected tokens are grammar names. The common errors are
   * put in the user's terms from what the parser reports about them.
   */

  /** An expression that does not parse, from the parser's account: what it found and what it expected instead. */
  static String explainExpression(String expr, TreeBuilderException t) {
    String found = String.valueOf(t.getEncountered());
    String expected = t.getExpected() == null ? "" : t.getExpected().strip();
    String what;
    if (found.equals("'}'")) {
      what = "the expression ends too early"; // the '}' is the end of the "#{...}" the expression is parsed in
    } else if (found.length() > 1 && found.startsWith("'") && found.endsWith("'")) {
      what = "unexpected " + found;
    } else {
      what = found; // not a token: the scanner names what it could not read ("unterminated string")
    }
    String want = expected.contains("<IDENTIFIER>") ? ", expected a value"
        : expected.isEmpty() || expected.equals("'}'") ? "" : ", expected " + expected.replace("|", " or ");
    if (found.equals("'+'") && PLUS_WITHOUT_SPACE.matcher(expr).find()) {
      // Jinjava's scanner takes '+1' right after a value for a signed number, a second value: 'n+1' does not parse.
      want += "; write a space after '+' ('n + 1')";
    }
    return "syntax error in '" + around(expr, t.getPosition() - 2) + "': " + what + want; // 2: the "#{"
  }

  private static final Pattern PLUS_WITHOUT_SPACE = Pattern.compile("[^\\s+(\\[{,]\\+[0-9.]");

  /**
   * The expression as an error quotes it: whole up to 80 characters, else the 80 around {@code at} (where the parser
   * stopped), so that an expression of any length gives a message of bounded length that still shows the spot.
   */
  static String around(String expr, int at) {
    String one = expr.replace('\n', ' ');
    if (one.length() <= 80) {
      return one;
    }
    int from = Math.clamp(at - 40L, 0, one.length() - 80);
    return (from > 0 ? "..." : "") + one.substring(from, from + 80) + (from + 80 < one.length() ? "..." : "");
  }

  /** A syntax error of the template's structure, as the parser recorded it. */
  static String explainSyntax(TemplateError e) {
    if (e.getException() instanceof MissingEndTagException m) {
      return "'" + abbreviate(m.getStartDefinition().strip()) + "' is never closed (missing {% " + m.getEndTag()
          + " %})";
    }
    // The two errors below have no exception to tell them by; their messages are fixed texts of Jinjava's parser.
    String msg = cleanMessage(e.getMessage());
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
    return withoutJavaTypes(m.strip());
  }

  private static final Pattern NO_METHOD = Pattern.compile(
      "Cannot find method (\\S+) with (\\d+) parameters in class (\\S+)");
  private static final Pattern NO_COERCION = Pattern.compile(
      "Cannot coerce '(.*)' of class (\\S+) to class (\\S+) \\((?:incompatible (?:value|type))\\)", Pattern.DOTALL);
  /**
   * {@code {{ -x }}}: Jinja reads it as minus x, Jinjava as x with the whitespace before it trimmed (it takes a
   * leading '-' for the trim marker even after spaces), so it would render the value without its sign.
   */
  private static final Pattern MINUS_AFTER_SPACE = Pattern.compile("\\{\\{\\s+-");
  /** {@code /}, {@code //} and {@code %} by zero, as Jinjava reports them (Java's and BigDecimal's wordings). */
  private static final Pattern BY_ZERO = Pattern.compile(
      "ArithmeticException when resolving expression \\[(.*)\\]: ArithmeticException: "
          + "(?:/ by zero|Division by zero|Division undefined|BigInteger divide by zero)", Pattern.DOTALL);
  // Only the packages Jinjava's values come from: a user's own dotted path (state.items.Count) is never touched.
  private static final Pattern JAVA_TYPE = Pattern.compile(
      "(?:class )?\\b(?:java|javax|com\\.hubspot|jinjava|dev\\.loopflow)\\.(?:[a-z_][a-z0-9_]*\\.)*[A-Z][A-Za-z0-9_$]*");

  /**
   * Jinjava's run-time messages name Java classes ("in class java.lang.String", "SizeLimitingPyMap"), which say
   * nothing to someone who wrote a template: they are told the kind of value instead (text, a whole number, a
   * map...). A map or list's value is not quoted back, since Java prints it in a form the template never used.
   */
  static String withoutJavaTypes(String m) {
    Matcher zero = BY_ZERO.matcher(m);
    if (zero.find()) {
      m = zero.replaceFirst(Matcher.quoteReplacement("division by zero in '" + zero.group(1) + "'"));
    }
    Matcher method = NO_METHOD.matcher(m);
    if (method.find()) {
      m = method.replaceFirst(Matcher.quoteReplacement("'" + method.group(1) + "' is not a function of "
          + kindOf(method.group(3)) + " (called with " + method.group(2) + " argument"
          + (method.group(2).equals("1") ? "" : "s") + ")"));
    }
    Matcher coerce = NO_COERCION.matcher(m);
    if (coerce.find()) {
      String from = kindOf(coerce.group(2));
      String value = from.equals("a map") || from.equals("a list") ? "" : " '" + coerce.group(1) + "'";
      m = coerce.replaceFirst(Matcher.quoteReplacement(from + value + " cannot be used as "
          + kindOf(coerce.group(3))));
    }
    return JAVA_TYPE.matcher(m).replaceAll(r -> Matcher.quoteReplacement(kindOf(r.group())));
  }

  private static String kindOf(String javaType) {
    String simple = javaType.substring(javaType.lastIndexOf('.') + 1);
    return switch (simple) {
      case "String", "SafeString", "Character" -> "text";
      case "Integer", "Long", "Short", "Byte", "BigInteger" -> "a whole number";
      case "Double", "Float", "BigDecimal", "Number" -> "a number";
      case "Boolean" -> "true/false";
      default -> simple.endsWith("Map") ? "a map"
          : simple.endsWith("List") || simple.endsWith("Set") || simple.endsWith("Collection") ? "a list"
          : "a value";
    };
  }

  static String abbreviate(String s) {
    String one = s.replace('\n', ' ');
    return one.length() > 80 ? one.substring(0, 77) + "..." : one;
  }
}
