package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.internal.nodes.ShellFrame.Kind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * The expansion contexts of {@link ShellLexer}: what follows a $ (command substitution, arithmetic, parameter
 * expansion, $'...'), backquotes, and the text of ${ } and of arithmetic. In arithmetic a value is an operand
 * (INTEGER), unless it is the key of an associative array; a name or an expansion of its own in arithmetic means
 * the command evaluates something other than a checked value.
 */
final class ShellExpansions {
  private final ShellLexer lx;

  ShellExpansions(ShellLexer lx) {
    this.lx = lx;
  }

  /** At a $ outside single quotes: a value reference, $'...', $"...", $( ), $(( )), ${ }, $[ ] or a plain $. */
  void dollar(boolean ansiAllowed) {
    if (lx.placeholderAt(lx.i + 1) != 0) {
      // "$" + reference would read as $$ or $"...": keep the dollar sign literal.
      lx.out.append("\\$");
      lx.i++;
      return;
    }
    if (ansiAllowed && (lx.at(lx.i + 1) == '\'' || lx.at(lx.i + 1) == '"')) {
      lx.markQuoted();
      lx.emit(lx.s.substring(lx.i, lx.i + 2));
      lx.push(new ShellFrame(lx.s.charAt(lx.i - 1) == '"' ? Kind.DQ : Kind.ANSI, lx.s.charAt(lx.i - 1)));
      return;
    }
    lx.markDynamic();
    if (lx.lookingAt("$((")) {
      lx.emit("$((");
      lx.push(new ShellFrame(Kind.ARITH, ')'));
    } else if (lx.lookingAt("$(")) {
      lx.emit("$(");
      lx.push(lx.commands(')', null));
    } else if (lx.lookingAt("${")) {
      lx.emit("${");
      ShellFrame p = new ShellFrame(Kind.PARAM, '}');
      p.inDoubleQuotes = inDoubleQuotes();
      lx.push(p);
    } else if (lx.lookingAt("$[")) {
      lx.emit("$[");
      lx.push(new ShellFrame(Kind.ARITH, ']'));
    } else {
      lx.emit('$');
    }
  }

  /** True when the text at the top of the stack is inside double quotes (or an unquoted heredoc body). */
  private boolean inDoubleQuotes() {
    for (ShellFrame f : lx.stack) {
      switch (f.kind) {
        case DQ, HEREDOC -> {
          return true;
        }
        case PARAM -> {
          return f.inDoubleQuotes;
        }
        case SQ, ANSI -> {
          continue;
        }
        default -> {
          return false;
        }
      }
    }
    return false;
  }

  /** At a backquote: the command inside is read on its own, like bash does. */
  void backquote() {
    ShellFrame top = lx.stack.peek();
    if (top.kind == Kind.SQ || top.kind == Kind.ANSI) {
      lx.emit('`');
      return;
    }
    lx.markDynamic();
    // Bash finds the closing backquote first (a backslash escapes one character, quotes count for nothing), then
    // takes one level of backslashes off \$, \`, \\ (and \" inside double quotes) and parses the result as a
    // command of its own: `echo \$((x))` is arithmetic and \`...\` nests. So does this reader, and it writes
    // the command back with those characters escaped again.
    boolean dq = inDoubleQuotesProper();
    StringBuilder inner = new StringBuilder();
    List<Integer> origins = new ArrayList<>();
    int k = lx.i + 1;
    while (k < lx.s.length() && lx.s.charAt(k) != '`') {
      char c = lx.s.charAt(k);
      if (c == '\\' && k + 1 < lx.s.length()) {
        char n = lx.s.charAt(k + 1);
        if (n == '$' || n == '`' || n == '\\' || dq && n == '"') {
          inner.append(n);
          origins.add(k + 1);
          k += 2;
          continue;
        }
        inner.append(c).append(n);
        origins.add(k);
        origins.add(k + 1);
        k += 2;
        continue;
      }
      inner.append(c);
      origins.add(k);
      k++;
    }
    ShellLexer sub = new ShellLexer(inner.toString(), lx.sources, lx.refs, new HashSet<>(lx.associative));
    int refsBefore = lx.refs.size();
    ShellLexer.Result r = sub.run();
    int opened = lx.i;
    lx.adopt(r, refsBefore, offset -> origins.isEmpty() ? opened : origins.get(Math.min(offset, origins.size() - 1)));
    for (ShellLexer.Problem p : r.problems()) {
      int at = origins.isEmpty() ? lx.i : origins.get(Math.min(p.offset(), origins.size() - 1));
      lx.problems.add(new ShellLexer.Problem(at, p.message()));
    }
    StringBuilder escaped = new StringBuilder("`");
    for (char c : r.script().toCharArray()) {
      if (c == '$' || c == '`' || c == '\\' || dq && c == '"') {
        escaped.append('\\');
      }
      escaped.append(c);
    }
    escaped.append(k < lx.s.length() ? "`" : "");
    lx.out.append(escaped);
    ShellWord w = lx.collector();
    if (w != null) {
      w.text.append(escaped);
    }
    lx.i = Math.min(k + 1, lx.s.length());
  }

  /** True when the top of the stack is inside double quotes (not a heredoc body, where \" keeps its backslash). */
  private boolean inDoubleQuotesProper() {
    for (ShellFrame f : lx.stack) {
      switch (f.kind) {
        case DQ -> {
          return true;
        }
        case SQ, ANSI, PARAM -> {
          continue;
        }
        default -> {
          return false;
        }
      }
    }
    return false;
  }

  /** Inside ${ }: the name, a subscript, an offset, or the word of an operator such as ${x:-word}. */
  void parameter(ShellFrame f) {
    char c = lx.current();
    switch (f.paramState) {
      case 0 -> {
        f.paramState = 1;
        if (c == '!' && lx.at(lx.i + 1) != '}') {
          // ${!name}: the value of name is taken as a variable name, subscript included.
          lx.evaluatesIndirectly = true;
          lx.emit(c);
        } else if (c == '#' && lx.at(lx.i + 1) != '}') {
          lx.emit(c);
        }
      }
      case 1 -> {
        boolean nameChar = c < 128 && Character.isLetterOrDigit(c) || c == '_';
        boolean special = f.paramName.isEmpty() && "@*#?$!-".indexOf(c) >= 0;
        if (nameChar || special) {
          f.paramName.append(c);
          lx.emit(c);
          if (special) {
            f.paramState = 2;
          }
        } else {
          f.paramState = 2;
        }
      }
      case 2 -> {
        if (c == '}') {
          lx.emit(c);
          lx.stack.pop();
        } else if (c == '[') {
          lx.emit(c);
          ShellFrame sub = new ShellFrame(Kind.ARITH, ']');
          sub.numeric = !lx.associative.contains(f.paramName.toString());
          lx.push(sub);
        } else if (c == ':' && "-=?+".indexOf(lx.at(lx.i + 1)) >= 0) {
          lx.emit(lx.s.substring(lx.i, lx.i + 2));
          f.paramState = 3;
        } else if (c == ':') {
          lx.emit(c);
          lx.push(new ShellFrame(Kind.ARITH, '}')); // ${x:offset:length}
        } else if (c == '@' && lx.at(lx.i + 1) == 'P') {
          // ${x@P} expands the value as a prompt, command substitution included.
          lx.runsCode = lx.runsCode != null ? lx.runsCode : "${name@P} expands a variable's text as a prompt, "
              + "running the command substitutions in it";
          lx.emit(c);
        } else {
          f.paramState = 3;
          lx.emit(c);
        }
      }
      default -> {
        switch (c) {
          case '}' -> {
            lx.emit(c);
            lx.stack.pop();
          }
          case '"' -> {
            lx.emit(c);
            lx.push(new ShellFrame(Kind.DQ, '"'));
          }
          case '\'' -> {
            lx.emit(c);
            // Inside double quotes, ${x:-'...'} keeps the single quotes as text.
            if (!f.inDoubleQuotes) {
              lx.push(new ShellFrame(Kind.SQ, '\''));
            }
          }
          case '\\' -> lx.escape(f);
          case '$' -> dollar(!f.inDoubleQuotes);
          case '`' -> backquote();
          default -> lx.emit(c);
        }
      }
    }
  }

  /** Inside $(( )), (( )), $[ ], a subscript or a ${x:offset}: the text is evaluated as arithmetic. */
  void arithmetic(ShellFrame f) {
    char c = lx.current();
    if (f.closer == ')') {
      if (c == '(') {
        f.depth++;
      } else if (c == ')') {
        if (f.depth > 0) {
          f.depth--;
        } else {
          lx.pass(lx.at(lx.i + 1) == ')' ? 2 : 1);
          lx.popTo(f);
          return;
        }
      }
    } else if (f.closer == ']') {
      if (c == '[') {
        f.depth++;
      } else if (c == ']') {
        if (f.depth > 0) {
          f.depth--;
        } else {
          lx.emit(c);
          lx.popTo(f);
          return;
        }
      }
    } else {
      if (c == '(') {
        f.depth++;
      } else if (c == ')' && f.depth > 0) {
        f.depth--;
      } else if (c == '}' && f.depth == 0) {
        lx.popTo(f); // the offset ends where its ${ } does; the parameter frame takes the brace
        return;
      }
    }
    switch (c) {
      case '"' -> {
        lx.emit(c);
        lx.push(new ShellFrame(Kind.DQ, '"'));
      }
      case '\'' -> {
        lx.emit(c);
        lx.push(new ShellFrame(Kind.SQ, '\''));
      }
      case '\\' -> lx.escape(f);
      case '$' -> dollar(false);
      case '`' -> backquote();
      default -> {
        if (Character.isLetter(c) || c == '_') {
          f.sawName = true;
        }
        lx.emit(c);
      }
    }
  }
}
