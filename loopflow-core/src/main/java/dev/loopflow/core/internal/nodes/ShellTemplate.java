package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/*
 * Injection safety for shell commands. Values are never spliced into the command text:
 *  - at load time each {{ expression }} becomes a reference to an environment variable ${LOOPFLOW_ARG_n} and is
 *    compiled on its own; the only tags kept are {% if %} and its branches (conditions print nothing), {% raw %}
 *    and {# comments #}, so the command text is the workflow's own text whatever the values are;
 *  - at run time the command text is read as the shell will read it (ShellLexer): each reference is quoted for
 *    the context it ends up in, and each value is checked for how the shell uses it there (an integer in
 *    arithmetic, a name where a variable name is expected, free of expandable subscripts when the command
 *    evaluates arithmetic or names through variables) before anything runs. A value that fails is refused
 *    with ShellValueRejectedException; nothing is executed.
 * When the command has no tags its text is fixed, so it is read once, at load time.
 */
final class ShellTemplate {
  private static final Pattern TAG_NAME = Pattern.compile("\\{%[-+]?\\s*([A-Za-z_]*)");
  private static final Pattern END_RAW = Pattern.compile("\\{%[-+]?\\s*endraw\\s*[-+]?%}");
  private static final Set<String> ALLOWED_TAGS = Set.of("if", "elif", "else", "endif");
  private static final String RESERVED = "LOOPFLOW_ARG_";
  private static final Pattern TAG = Pattern.compile("\\{%.*?%}|\\{#.*?#}", Pattern.DOTALL);

  /** The field as written in the workflow, for messages. */
  final String field;
  private final Template script;
  private final List<Template> args;
  /** The command read at load time, when it has no tags (its text never changes); null otherwise. */
  private final ShellLexer.Result fixed;
  /** What makes the command run code it does not show, or null. */
  private final String runsCode;

  private ShellTemplate(String field, Template script, List<Template> args, ShellLexer.Result fixed,
      String runsCode) {
    this.field = field;
    this.script = script;
    this.args = args;
    this.fixed = fixed;
    this.runsCode = runsCode;
  }

  static String var(int i) {
    return RESERVED + i;
  }

  /** The command to run and the environment variables that carry its values. */
  record Bound(String script, Map<String, String> variables) {}

  /**
   * Compiles a string command; reports problems on {@code field} (at their line) and returns null when there are
   * any. {@code shownAs} is the field's name in the workflow file.
   */
  static ShellTemplate compile(NodeConfig cfg, String field, String shownAs, String source) {
    Source src = split(cfg, field, source);
    if (src == null) {
      return null;
    }
    ShellLexer.Result read = null;
    String runsCode = null;
    if (src.hasTags) {
      // The text depends on the tags' conditions; read it with every branch present to find whether any of them
      // makes the command run code that is not written in it (then no value may appear, whichever branch runs).
      List<String> names = new ArrayList<>();
      for (Template t : src.args) {
        names.add(t == null ? "" : t.source());
      }
      ShellLexer.Result all = ShellLexer.read(TAG.matcher(src.script).replaceAll(" "), names);
      runsCode = all.runsCode();
      if (runsCode != null) {
        cfg.error(field, lineOf(source, 0), "no value can be used in this command: " + runsCode);
        src.ok = false;
      }
    } else {
      // Without tags the text never changes: read it now, and report its problems where they are written.
      List<String> names = new ArrayList<>();
      for (Template t : src.args) {
        names.add(t == null ? "" : t.source());
      }
      read = ShellLexer.read(src.script.toString(), names);
      runsCode = read.runsCode();
      for (ShellLexer.Problem p : read.problems()) {
        cfg.error(field, lineOf(source, src.origin(p.offset())), p.message());
        src.ok = false;
      }
    }
    if (!src.ok) {
      return null; // the command is not compiled with a refused tag or value
    }
    Template script = cfg.template(field, src.script.toString());
    return script == null ? null : new ShellTemplate(shownAs, script, src.args, read, runsCode);
  }

  /**
   * Checks the node's env: values, which reach the command as variables: a value may not be given to a variable
   * whose text the shell or a program runs (PS4, BASH_ENV, LD_PRELOAD, ...), nor to a command that runs code it
   * does not show ({@code eval "$X"}, {@code bash <<EOF}).
   */
  static void checkEnv(NodeConfig cfg, Map<String, Template> env, ShellTemplate script) {
    env.forEach((name, t) -> {
      if (t == null || t.isLiteral()) {
        return;
      }
      ShellSpecials.Kind kind = ShellSpecials.kind(name);
      if (kind != ShellSpecials.Kind.NONE) {
        cfg.error("env", "env." + name + " cannot be given a value (" + t.source() + "): "
            + ShellSpecials.why(kind) + "; use a variable of your own (lower case)");
      } else if (script != null && script.runsCode != null) {
        cfg.error("env", "env." + name + " cannot be given a value (" + t.source() + ") for this command: "
            + script.runsCode + ", and the value could reach that code through the variable");
      }
    });
  }

  /** The command split into its text and its values. */
  private static final class Source {
    /** The template run at run time: the command's text, tags, and a reference for each value. */
    final StringBuilder script = new StringBuilder();
    /** For each character of the script, its offset in the source (for the line of a problem). */
    final List<Integer> origins = new ArrayList<>();
    final List<Template> args = new ArrayList<>();
    boolean hasTags;
    boolean ok = true;
    /** Refused block tags open at this point ({% for %} until its {% endfor %}). */
    int refusedBlocks;

    void copy(String source, int from, int to) {
      script.append(source, from, to);
      for (int k = from; k < to; k++) {
        origins.add(k);
      }
    }

    void insert(String text, int at) {
      script.append(text);
      for (int k = 0; k < text.length(); k++) {
        origins.add(at);
      }
    }

    int origin(int offset) {
      return origins.isEmpty() ? 0 : origins.get(Math.min(Math.max(offset, 0), origins.size() - 1));
    }

    /** {{- removes the blanks before it, as in any template. */
    void trimTrailingBlanks() {
      int n = script.length();
      while (n > 0 && Character.isWhitespace(script.charAt(n - 1))) {
        n--;
      }
      script.setLength(n);
      origins.subList(n, origins.size()).clear();
    }
  }

  private static Source split(NodeConfig cfg, String field, String source) {
    Source src = new Source();
    int reserved = source.indexOf(RESERVED);
    if (reserved >= 0) {
      cfg.error(field, lineOf(source, reserved), "names starting with " + RESERVED + " are reserved for the values "
          + "loopflow passes to the command; rename the variable");
      return null;
    }
    int i = 0;
    while (i < source.length()) {
      if (source.startsWith("{{", i)) {
        int end = source.indexOf("}}", i + 2);
        if (end < 0) {
          cfg.error(field, lineOf(source, i), "template syntax error: '{{' without a closing '}}'");
          return null;
        }
        String expr = source.substring(i, end + 2);
        if (expr.startsWith("{{-")) {
          src.trimTrailingBlanks();
        }
        // Inside a refused block ({% for x %}...) an expression may name the block's variables: the refused tag
        // is the problem to report, not those names.
        Template t = src.refusedBlocks > 0 ? null : cfg.template(field, expr);
        src.ok &= t != null;
        src.args.add(t);
        src.insert(ShellLexer.placeholder(src.args.size()), i);
        i = end + 2;
        if (expr.endsWith("-}}")) {
          while (i < source.length() && Character.isWhitespace(source.charAt(i))) {
            i++;
          }
        }
        continue;
      }
      if (source.startsWith("{#", i)) {
        int end = source.indexOf("#}", i + 2);
        if (end < 0) {
          cfg.error(field, lineOf(source, i), "'{#' starts a template comment that is never closed; for the shell's "
              + "${#name} write {% raw %}${#name}{% endraw %}");
          return null;
        }
        end += 2;
        src.copy(source, i, end); // the template engine drops it
        src.hasTags = true;
        i = end;
        continue;
      }
      if (source.startsWith("{%", i)) {
        int end = source.indexOf("%}", i + 2);
        end = end < 0 ? source.length() : end + 2;
        Matcher m = TAG_NAME.matcher(source).region(i, source.length());
        String tag = m.lookingAt() ? m.group(1) : "";
        src.hasTags = true;
        if (tag.equals("raw")) {
          Matcher r = END_RAW.matcher(source).region(end, source.length());
          int rawEnd = r.find() ? r.end() : source.length();
          src.copy(source, i, rawEnd); // raw text is shell text like any other
          i = rawEnd;
          continue;
        }
        if (!ALLOWED_TAGS.contains(tag) && tag.startsWith("end") && src.refusedBlocks > 0) {
          src.refusedBlocks--; // its opening tag was reported
        } else if (!ALLOWED_TAGS.contains(tag)) {
          if (source.indexOf("end" + tag, end) >= 0) {
            src.refusedBlocks++;
          }
          cfg.error(field, lineOf(source, i), "{% " + tag + " %} cannot be used in a shell command: only {% if %}, "
              + "{% elif %}, {% else %}, {% endif %}, {% raw %} and {# comments #} can, because other tags would "
              + "put text into the command that is not passed as data (or render values the command never "
              + "receives). Give a list as separate arguments with the argv form (command: [prog, \"{{ x }}\", "
              + "...]) or as one argument with {{ xs | join(' ') }}, or build the text in a script node");
          src.ok = false;
        }
        src.copy(source, i, end);
        i = end;
        continue;
      }
      int next = nextSpecial(source, i);
      src.copy(source, i, next);
      i = next;
    }
    return src;
  }

  private static int nextSpecial(String source, int from) {
    int i = from + 1;
    while (i < source.length() && !(source.charAt(i) == '{' && i + 1 < source.length()
        && "{%#".indexOf(source.charAt(i + 1)) >= 0)) {
      i++;
    }
    return i;
  }

  static int lineOf(String source, int offset) {
    int line = 1;
    for (int k = 0; k < Math.min(offset, source.length()); k++) {
      if (source.charAt(k) == '\n') {
        line++;
      }
    }
    return line;
  }

  /**
   * Renders the command and its values for one execution; {@code env} holds the node's env: values, which
   * also reach the command. Throws ShellValueRejectedException when a value cannot be passed safely.
   */
  Bound bind(NodeContext ctx, Map<String, String> env) {
    ShellLexer.Result read = fixed;
    if (read == null) {
      List<String> names = new ArrayList<>();
      for (Template t : args) {
        names.add(t.source());
      }
      read = ShellLexer.read(ctx.render(script), names);
    }
    if (!read.problems().isEmpty()) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, field + ": " + read.problems().get(0).message());
    }
    Map<String, String> vars = new LinkedHashMap<>();
    for (ShellLexer.Reference r : read.references()) {
      Template t = args.get(r.arg() - 1);
      String value = Values.text(ctx.evaluate(t));
      vars.put(var(r.arg()), switch (r.use()) {
        case INTEGER -> ShellValues.integer(value, field, t.source());
        case NAME -> ShellValues.name(value, field, t.source());
        case OPERAND -> ShellValues.operand(value, field, t.source());
        case TEXT -> value;
      });
    }
    if (read.evaluatesIndirectly()) {
      for (ShellLexer.Reference r : read.references()) {
        ShellValues.inert(vars.get(var(r.arg())), field, args.get(r.arg() - 1).source());
      }
      env.forEach((k, v) -> ShellValues.inert(v, field, "env." + k));
    }
    return new Bound(read.script(), vars);
  }
}
