package dev.loopflow.cli;

/**
 * The end of the text a node is streaming, as the progress table shows it under the node's row: one line of at most
 * {@link #COLUMNS} terminal columns, whatever the model sent.
 *
 * <p>The text comes from a model and may be hostile: control characters, escape sequences, line and paragraph
 * separators, bidirectional overrides and other invisible format characters each become a space (so nothing can
 * move the cursor, forge a line or reorder what is shown), runs of spaces become one, and wide characters count two
 * columns, so the line never wraps and the table's redraw stays in place. A huge delta costs only its end.
 */
final class StreamTail {
  /** Columns of text shown; with the line's indent it fits an 80-column terminal. */
  static final int COLUMNS = 72;

  private final String path;
  private final int reply;
  private final StringBuilder text = new StringBuilder();

  StreamTail(String path, int reply) {
    this.path = path;
    this.reply = reply;
  }

  /** Whether a streamed event of {@code path}'s reply {@code reply} continues this text. */
  boolean continues(String path, int reply) {
    return this.path.equals(path) && this.reply == reply;
  }

  void add(String delta) {
    // Only the end of a delta can be shown: at most two characters (a surrogate pair) per column.
    int from = Math.max(0, delta.length() - 2 * COLUMNS);
    if (from > 0 && Character.isLowSurrogate(delta.charAt(from))) {
      from++;
    }
    for (int i = from; i < delta.length(); ) {
      int cp = delta.codePointAt(i);
      i += Character.charCount(cp);
      boolean blank = Character.isWhitespace(cp) || Character.isSpaceChar(cp) || !visible(cp);
      if (blank) {
        if (text.isEmpty() || text.charAt(text.length() - 1) != ' ') {
          text.append(' ');
        }
      } else {
        text.appendCodePoint(cp);
      }
    }
    trim();
  }

  /** The line shown: the latest text that fits in {@link #COLUMNS} columns. */
  String shown() {
    return text.toString();
  }

  /** Drops text from the front until the rest fits (and holds few characters, however many are zero-width). */
  private void trim() {
    int width = 0;
    int start = text.length();
    while (start > 0) {
      int cp = Character.codePointBefore(text, start);
      int w = width(cp);
      if (width + w > COLUMNS || text.length() - start >= 3 * COLUMNS) {
        break;
      }
      width += w;
      start -= Character.charCount(cp);
    }
    text.delete(0, start);
  }

  private static boolean visible(int cp) {
    return switch (Character.getType(cp)) {
      case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
           Character.UNASSIGNED, Character.PRIVATE_USE, Character.SURROGATE -> false;
      default -> true;
    };
  }

  /** Terminal columns of a visible code point: 0 for combining marks, 2 for East Asian wide and emoji, else 1. */
  static int width(int cp) {
    int type = Character.getType(cp);
    if (type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK) {
      return 0;
    }
    boolean wide = cp >= 0x1100 && cp <= 0x115F || cp >= 0x2E80 && cp <= 0xA4CF && cp != 0x303F
        || cp >= 0xAC00 && cp <= 0xD7A3 || cp >= 0xF900 && cp <= 0xFAFF || cp >= 0xFE30 && cp <= 0xFE4F
        || cp >= 0xFF00 && cp <= 0xFF60 || cp >= 0xFFE0 && cp <= 0xFFE6 || cp >= 0x1F000 && cp <= 0x1FAFF
        || cp >= 0x20000 && cp <= 0x3FFFD;
    return wide ? 2 : 1;
  }
}
