package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.internal.nodes.ShellLexer.Use;
import java.util.ArrayList;
import java.util.List;

/**
 * One word of a shell command as written (quotes included, references left out) and the value references it
 * holds. {@link ShellLexer} appends its characters; {@link ShellWords} marks what it has seen in it (quotes, an
 * expansion, an '=') and decides what it means once it ends.
 */
final class ShellWord {
  /** A value reference: argument n (1-based), where it was read, and how the shell uses it. */
  static final class Ref {
    final int arg;
    /** Where it was read, in the text of the outermost read once a nested read (a backquote, a heredoc) is over. */
    int offset;
    Use use;

    Ref(int arg, int offset, Use use) {
      this.arg = arg;
      this.offset = offset;
      this.use = use;
    }
  }

  final StringBuilder text = new StringBuilder();
  /** No quotes, escapes or expansions: the word can be a reserved word. */
  boolean plain = true;
  /** Holds an expansion of its own ($x, $( ), backquotes), so its final text is unknown. */
  boolean dynamic;
  /** The text before the first unquoted '=', or null: the name of an assignment, if the word is one. */
  String beforeEquals;
  boolean dynamicBeforeEquals;
  final List<Ref> refs = new ArrayList<>();
  final List<Ref> refsBeforeEquals = new ArrayList<>();

  /** The word after quote removal, or null when it has quoting this reader does not undo ($'...'). */
  String unquoted() {
    return unquote(text);
  }

  /** {@code text} after quote removal, or null when it has quoting this reader does not undo ($'...'). */
  private static String unquote(CharSequence text) {
    StringBuilder b = new StringBuilder();
    for (int k = 0; k < text.length(); k++) {
      char c = text.charAt(k);
      if (c == '\\' && k + 1 < text.length()) {
        b.append(text.charAt(++k));
      } else if (c == '\'') {
        int end = indexOf(text, '\'', k + 1);
        b.append(text, k + 1, end);
        k = end;
      } else if (c == '"') {
        k++;
        while (k < text.length() && text.charAt(k) != '"') {
          if (text.charAt(k) == '\\' && k + 1 < text.length() && "\"\\$`".indexOf(text.charAt(k + 1)) >= 0) {
            k++;
          }
          b.append(text.charAt(k++));
        }
      } else if (c == '$' && k + 1 < text.length() && text.charAt(k + 1) == '\'') {
        return null;
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  private static int indexOf(CharSequence text, char c, int from) {
    for (int k = from; k < text.length(); k++) {
      if (text.charAt(k) == c) {
        return k;
      }
    }
    return text.length();
  }
}
