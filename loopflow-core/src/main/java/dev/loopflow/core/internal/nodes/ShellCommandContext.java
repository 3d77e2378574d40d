package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.internal.nodes.ShellFrame.Kind;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command context of {@link ShellLexer}: the text of a command list (the top level, a $( ), a subshell, an
 * array literal) or of a [[ ]], outside any quotes or expansion. It splits the text into words for
 * {@link ShellWords}, handles operators, redirections, parentheses, comments and [[ ]], and hands every quote,
 * $ and backquote to the context that reads it.
 */
final class ShellCommandContext {
  private static final Pattern FUNCTION_PARENS = Pattern.compile("\\([ \\t]*\\)");

  private final ShellLexer lx;

  ShellCommandContext(ShellLexer lx) {
    this.lx = lx;
  }

  /** Outside quotes and expansions: in a command list, or inside [[ ]]. */
  void read(ShellFrame f) {
    char c = lx.current();
    boolean db = f.kind == Kind.DBRACKET;
    ShellWords words = f.words;
    if (c == '\\') {
      lx.escape(f);
      return;
    }
    if (ShellLexer.isBlank(c)) {
      words.endWord(lx.closing);
      lx.pass(1);
      return;
    }
    if (c == '\n') {
      if (db || words.inCasePattern()) {
        words.endWord(lx.closing);
      } else {
        words.endCommand();
      }
      lx.pass(1);
      if (!db) {
        lx.heredocs.readPendingBodies();
      }
      return;
    }
    if (c == '#' && words.betweenWords() && !db) {
      comment();
      return;
    }
    if (c == '\'' || c == '"') {
      words.quoted();
      lx.emit(c);
      lx.push(new ShellFrame(c == '"' ? Kind.DQ : Kind.SQ, c));
      return;
    }
    if (c == '$') {
      words.word();
      lx.expansions.dollar(true);
      return;
    }
    if (c == '`') {
      words.word();
      lx.expansions.backquote();
      return;
    }
    if (db) {
      conditional(f, c);
      return;
    }
    if (c == ';' || c == '&' || c == '|') {
      operator(f, c);
      return;
    }
    if (c == '<' || c == '>') {
      redirection(f);
      return;
    }
    if (c == '(') {
      openParen(f);
      return;
    }
    if (c == ')') {
      if (words.inCasePattern()) {
        words.casePatternEnd();
        lx.pass(1);
      } else if (f.closer == ')') {
        lx.popTo(f);
        lx.pass(1);
      } else {
        words.endWord(lx.closing);
        lx.pass(1); // an unbalanced ')': the shell reports it
      }
      return;
    }
    if (c == '[' && subscriptStart(f)) {
      return;
    }
    if (c == '=') {
      words.equalsSign();
    }
    lx.emit(c);
  }

  /** Inside [[ ]]: words end at blanks, && and ||; parentheses and < > belong to words (regexes, operators). */
  private void conditional(ShellFrame f, char c) {
    if (f.words.betweenWords() && lx.lookingAt("]]") && delimiterAt(lx.i + 2)) {
      lx.popTo(f);
      lx.pass(2);
      return;
    }
    if ((c == '&' && lx.at(lx.i + 1) == '&') || (c == '|' && lx.at(lx.i + 1) == '|')) {
      f.words.andOr();
      lx.pass(2);
      return;
    }
    if (c == '[' && subscriptStart(f)) {
      return;
    }
    lx.emit(c);
  }

  private boolean delimiterAt(int p) {
    char c = lx.at(p);
    return c == 0 || ShellLexer.isBlank(c) || c == '\n' || c == ';' || c == '&' || c == '|' || c == ')' || c == '<'
        || c == '>';
  }

  private void comment() {
    // A # that starts a word runs to the end of the line; a value in it is dropped: it would do nothing there,
    // and a newline in it must not end the comment early.
    while (lx.i < lx.s.length() && lx.current() != '\n') {
      if (lx.placeholderAt(lx.i) != 0) {
        lx.i = lx.placeholderEnd(lx.i);
        continue;
      }
      lx.pass(1);
    }
  }

  private void operator(ShellFrame f, char c) {
    char n = lx.at(lx.i + 1);
    if (c == ';' && (n == ';' || n == '&')) {
      f.words.caseClauseEnd();
      lx.pass(n == ';' && lx.at(lx.i + 2) == '&' ? 3 : 2);
      return;
    }
    if (c == '|' && f.words.inCasePattern()) {
      f.words.endWord(lx.closing);
      lx.pass(1); // alternatives of a case pattern
      return;
    }
    if (c == '&' && n == '>') {
      redirection(f);
      return;
    }
    f.words.endCommand();
    lx.pass(n == c || c == '|' && n == '&' ? 2 : 1);
  }

  private void redirection(ShellFrame f) {
    if (lx.lookingAt("<<<")) {
      f.words.redirection();
      lx.pass(3);
      return;
    }
    if (lx.lookingAt("<<")) {
      f.words.heredoc();
      lx.heredocs.operator();
      return;
    }
    if (lx.lookingAt("<(") || lx.lookingAt(">(")) {
      f.words.endWord(lx.closing);
      f.words.expansion();
      lx.emit(lx.s.substring(lx.i, lx.i + 2));
      lx.push(lx.commands(')', null)); // process substitution
      return;
    }
    f.words.redirection();
    int len = 1;
    if (lx.lookingAt("&>>")) {
      len = 3;
    } else if (lx.lookingAt("&>") || lx.lookingAt(">>") || lx.lookingAt(">&") || lx.lookingAt(">|")
        || lx.lookingAt("<&") || lx.lookingAt("<>")) {
      len = 2;
    }
    lx.pass(len);
  }

  private void openParen(ShellFrame f) {
    ShellWords words = f.words;
    String array = words.arrayAssignment();
    if (array != null) {
      // name=( ... ): an array literal; [i]=v elements have arithmetic subscripts.
      lx.emit('(');
      lx.push(lx.commands(')', array));
      return;
    }
    if (words.inCasePattern()) {
      lx.pass(1);
      return;
    }
    words.endWord(lx.closing); // '(' is a metacharacter: it ends the word before it (if((x)) is "if" then "((")
    if (lx.at(lx.i + 1) == '(') {
      // (( ... )) and for (( ... )): arithmetic. A nested subshell written "((" is read as arithmetic too, which
      // only makes its values stricter.
      words.compound("((");
      lx.pass(2);
      lx.stack.push(new ShellFrame(Kind.ARITH, ')'));
      return;
    }
    Matcher fn = FUNCTION_PARENS.matcher(lx.s).region(lx.i, lx.s.length());
    if (words.hasCommandName() && fn.lookingAt()) {
      // name() { ...; }: a function definition; its body starts a new command.
      lx.pass(fn.end() - lx.i);
      words.endCommand();
      return;
    }
    lx.pass(1);
    lx.stack.push(lx.commands(')', null));
  }

  /** At '[': opens an arithmetic subscript when the word so far is a variable name in a place that takes one. */
  private boolean subscriptStart(ShellFrame f) {
    String array = f.words.subscriptedArray();
    if (array == null) {
      return false;
    }
    lx.emit('[');
    ShellFrame sub = new ShellFrame(Kind.ARITH, ']');
    sub.numeric = !lx.associative.contains(array);
    lx.push(sub);
    return true;
  }
}
