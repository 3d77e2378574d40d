package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.internal.nodes.ShellFrame.Kind;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;

/**
 * Heredocs in {@link ShellLexer}: the operator and its delimiter, then, at the end of the line, each body. A body
 * is read on its own as an unquoted heredoc (values go in as references, like in double quotes), or refused a
 * value when its delimiter is quoted (nothing is expanded there, so the value would never arrive).
 */
final class ShellHeredocs {
  private final ShellLexer lx;
  /** Heredocs whose operator was read on the current line: their bodies start on the next. */
  private final Deque<ShellFrame.Heredoc> pending = new ArrayDeque<>();

  ShellHeredocs(ShellLexer lx) {
    this.lx = lx;
  }

  /** At the start of a line: reads the bodies of the heredocs opened on the line before, in order. */
  void readPendingBodies() {
    while (!pending.isEmpty()) {
      readBody(pending.poll());
    }
  }

  /** At << or <<-: reads the delimiter; the body is read at the end of the line (see {@link #readPendingBodies}). */
  void operator() {
    boolean strip = lx.lookingAt("<<-");
    lx.pass(strip ? 3 : 2);
    while (lx.i < lx.s.length() && ShellLexer.isBlank(lx.current())) {
      lx.pass(1);
    }
    StringBuilder delimiter = new StringBuilder();
    boolean quoted = false;
    while (lx.i < lx.s.length()) {
      int n = lx.placeholderAt(lx.i);
      if (n != 0) {
        lx.problems.add(new ShellLexer.Problem(lx.i, lx.sources.get(n - 1) + " cannot be a heredoc delimiter; write "
            + "the delimiter in the command"));
        lx.i = lx.placeholderEnd(lx.i);
        continue;
      }
      char c = lx.current();
      if (ShellLexer.isBlank(c) || c == '\n' || ";&|()<>".indexOf(c) >= 0) {
        break;
      }
      if (c == '\'' || c == '"') {
        quoted = true;
        int end = lx.s.indexOf(c, lx.i + 1);
        end = end < 0 ? lx.s.length() : end;
        delimiter.append(lx.s, lx.i + 1, end);
        lx.pass(Math.min(end + 1, lx.s.length()) - lx.i);
      } else if (c == '\\' && lx.i + 1 < lx.s.length()) {
        quoted = true;
        delimiter.append(lx.s.charAt(lx.i + 1));
        lx.pass(2);
      } else {
        delimiter.append(c);
        lx.pass(1);
      }
    }
    if (!delimiter.isEmpty() || quoted) {
      pending.add(new ShellFrame.Heredoc(delimiter.toString(), strip, quoted));
    }
  }

  /**
   * A heredoc body starting at the current line. Like bash, it first finds the body's end (the first line that is
   * the delimiter, whatever the body holds: a $( still open does not hide it), then reads the body on its own.
   */
  private void readBody(ShellFrame.Heredoc h) {
    int start = lx.i;
    int end = lx.s.length();
    int after = lx.s.length();
    boolean joined = false;
    for (int p = start; p < lx.s.length(); ) {
      int eol = lx.s.indexOf('\n', p);
      int lineEnd = eol < 0 ? lx.s.length() : eol;
      String line = lx.s.substring(p, lineEnd);
      if (!joined && (h.stripTabs() ? line.replaceFirst("^\t+", "") : line).equals(h.delimiter())) {
        end = p;
        after = eol < 0 ? lx.s.length() : eol + 1;
        break;
      }
      // In an unquoted body, backslash-newline joins two lines before bash compares them with the delimiter.
      int backslashes = 0;
      while (backslashes < line.length() && line.charAt(line.length() - 1 - backslashes) == '\\') {
        backslashes++;
      }
      joined = !h.quoted() && backslashes % 2 == 1;
      if (eol < 0) {
        break;
      }
      p = eol + 1;
    }
    ShellLexer body = new ShellLexer(lx.s.substring(start, end), lx.sources, lx.refs, new HashSet<>(lx.associative));
    ShellFrame f = new ShellFrame(Kind.HEREDOC, (char) 0);
    f.heredoc = h;
    int refsBefore = lx.refs.size();
    ShellLexer.Result r = body.run(f);
    lx.adopt(r, refsBefore, offset -> start + offset);
    for (ShellLexer.Problem p : r.problems()) {
      lx.problems.add(new ShellLexer.Problem(start + p.offset(), p.message()));
    }
    lx.out.append(r.script());
    lx.i = end;
    lx.pass(after - end);
  }

  /** Inside a heredoc body (the body alone: its end was found before it was read). */
  void body(ShellFrame f) {
    char c = lx.current();
    if (f.heredoc.quoted()) {
      lx.pass(1);
      return;
    }
    switch (c) {
      case '\\' -> lx.escape(f);
      case '$' -> lx.expansions.dollar(false);
      case '`' -> lx.expansions.backquote();
      default -> lx.pass(1);
    }
  }
}
