package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.expr.Template;
import dev.loopflow.core.spi.NodeConfig;
import java.util.ArrayList;
import java.util.List;

/*
 * Injection safety for shell commands (004's review found values spliced into `sh -c` text). A command
 * template is split at compile time: each {{ expression }} is replaced by a reference to an environment
 * variable ("${LOOPFLOW_ARG_n}", quoted to suit the quoting context it sits in), and the expression is
 * compiled separately. At run time each expression is rendered and passed as that variable's value, so the
 * shell only ever sees the value as data: no word splitting, no globbing, no command substitution, whatever
 * the value holds. {% %} tags stay in the template and keep working. The quoting context is tracked through
 * backslash escapes and $( ) command substitutions, which start a fresh context even inside double quotes.
 */
final class ShellTemplate {
  final Template script;
  final List<Template> args;

  private ShellTemplate(Template script, List<Template> args) {
    this.script = script;
    this.args = args;
  }

  static String var(int i) {
    return "LOOPFLOW_ARG_" + i;
  }

  static ShellTemplate compile(NodeConfig cfg, String field, String source) {
    StringBuilder out = new StringBuilder();
    List<Template> args = new ArrayList<>();
    char quote = 0;
    // Quote contexts enclosing each open $( and '(' markers for plain parentheses inside one.
    java.util.ArrayDeque<Character> parens = new java.util.ArrayDeque<>();
    int i = 0;
    boolean ok = true;
    while (i < source.length()) {
      char c = source.charAt(i);
      if (source.startsWith("{{", i)) {
        int end = source.indexOf("}}", i + 2);
        if (end < 0) {
          cfg.error(field, "template syntax error: '{{' without a closing '}}'");
          return null;
        }
        Template t = cfg.template(field, source.substring(i, end + 2));
        if (t == null) {
          ok = false;
        }
        args.add(t);
        String ref = "${" + var(args.size()) + "}";
        switch (quote) {
          case '"' -> out.append(ref);
          case '\'' -> out.append("'\"").append(ref).append("\"'");
          default -> out.append('"').append(ref).append('"');
        }
        i = end + 2;
        continue;
      }
      if (source.startsWith("{%", i)) {
        int end = source.indexOf("%}", i + 2);
        if (end < 0) {
          end = source.length() - 2;
        }
        out.append(source, i, end + 2);
        i = end + 2;
        continue;
      }
      if (c == '\\' && quote != '\'' && i + 1 < source.length() && !source.startsWith("{{", i + 1)
          && !source.startsWith("{%", i + 1)) {
        // An escaped character (\" or \' outside single quotes) neither opens nor closes a quote.
        out.append(c).append(source.charAt(i + 1));
        i += 2;
        continue;
      }
      if (quote != '\'' && source.startsWith("$(", i)) {
        // A command substitution starts a new quoting context, even inside double quotes.
        parens.push(quote);
        quote = 0;
        out.append("$(");
        i += 2;
        continue;
      }
      if (quote == 0 && !parens.isEmpty() && (c == '(' || c == ')')) {
        if (c == '(') {
          parens.push('(');
        } else {
          char outer = parens.pop();
          quote = outer == '(' ? 0 : outer;
        }
        out.append(c);
        i++;
        continue;
      }
      if (quote == 0 && (c == '"' || c == '\'')) {
        quote = c;
      } else if (quote == c) {
        quote = 0;
      }
      out.append(c);
      i++;
    }
    Template script = cfg.template(field, out.toString());
    return ok && script != null ? new ShellTemplate(script, args) : null;
  }
}
