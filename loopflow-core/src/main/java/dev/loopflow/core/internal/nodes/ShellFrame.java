package dev.loopflow.core.internal.nodes;

/** One context on {@link ShellLexer}'s stack: a command list, [[ ]], quotes, ${ }, arithmetic or a heredoc body. */
final class ShellFrame {
  enum Kind { CMD, DBRACKET, DQ, SQ, ANSI, PARAM, ARITH, HEREDOC }

  /** A heredoc operator as read: its delimiter, whether it strips leading tabs (<<-), whether it was quoted. */
  record Heredoc(String delimiter, boolean stripTabs, boolean quoted) {}

  final Kind kind;
  /** CMD: 0 at the top or ')'; ARITH: ')' for "))", ']' or '}' (an offset, closed by its ${ }). */
  final char closer;
  /** The word this frame's text belongs to (quotes, ${ } and subscripts inside a word), if any. */
  ShellWord word;
  /** CMD and DBRACKET: the words read in this frame. */
  ShellWords words;
  /** ARITH: open parentheses or brackets inside. */
  int depth;
  /** ARITH: false for the subscript of an associative array (a key, not arithmetic). */
  boolean numeric = true;
  /** ARITH: a variable name or an expansion of its own appears inside. */
  boolean sawName;
  boolean hasReference;
  /** PARAM: 0 before the name, 1 in the name, 2 after it, 3 in the word of an operator (${x:-word}). */
  int paramState;
  final StringBuilder paramName = new StringBuilder();
  /** PARAM: inside double quotes, where ${x:-'...'} keeps its single quotes. */
  boolean inDoubleQuotes;
  /** HEREDOC: the operator whose body this is. */
  Heredoc heredoc;

  ShellFrame(Kind kind, char closer) {
    this.kind = kind;
    this.closer = closer;
  }
}
