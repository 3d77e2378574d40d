package dev.loopflow.core.internal.nodes;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/*
 * Reads a shell command the way sh and bash do, far enough to know what the shell will do with each value
 * reference ${LOOPFLOW_ARG_n} in it, and rewrites every reference so that the value arrives as data:
 *  - quoted to suit the context it sits in (outside quotes, in "...", in '...', in $'...', in an unquoted heredoc
 *    body where quotes would be literal, in arithmetic where dash rejects quotes);
 *  - dropped from # comments (a value there would do nothing, and it must not end the comment);
 *  - refused in a heredoc with a quoted delimiter (nothing is expanded there, the value would never arrive) and
 *    as a heredoc delimiter.
 * It also classifies each reference: INTEGER where bash evaluates the text as arithmetic (operands are evaluated
 * recursively, and an array subscript met on the way is expanded, $(...) included), NAME where bash takes the
 * text as a variable name (whose subscript is evaluated the same way), TEXT everywhere else. And it notes whether
 * the command evaluates arithmetic or variable names through anything but a reference (a variable, $(...), a
 * name): then a value may reach that evaluation indirectly (x=VALUE; echo $((x))), and every value must be free of
 * subscripts that could expand.
 *
 * Contexts recognised (the guarantee in docs/dsl.md §3.6 lists them):
 *  arithmetic: (( )), for (( )), $(( )), $[ ], let, declare/typeset/local -i, operands of -eq -ne -lt -le -gt -ge
 *  in [[ ]], test and [, ${name[...]} and name[...]= subscripts (not of arrays declared -A in the command),
 *  ${name:offset:length}, [...]= subscripts in array literals;
 *  names: the operand of -v (test, [, [[, printf), the names given to read, unset, mapfile, readarray, and the
 *  name part of declare/typeset/local arguments;
 *  indirect evaluation: any of the above containing a variable, an expansion or a name, ${!name}, declare -n.
 * What this reader does not model only makes it stricter (a nested subshell written as ((...)) is taken for
 * arithmetic) or changes how a value is quoted inside constructs the shells themselves disagree on; a value is
 * never placed where the shell would parse it as code, because the reference is the only thing emitted.
 */
final class ShellLexer {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{LOOPFLOW_ARG_([0-9]{1,6})}");
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern ASSIGNMENT_TARGET = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\[.*])?\\+?");
  private static final Set<String> ARITHMETIC_OPERATORS = Set.of("-eq", "-ne", "-lt", "-le", "-gt", "-ge");
  /** Words after which the next word is still in command position. */
  private static final Pattern FUNCTION_PARENS = Pattern.compile("\\([ \\t]*\\)");
  /** Shells whose -c argument is a script: a value placed in it would be parsed as code. */
  private static final Set<String> SHELLS = Set.of("sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "busybox");
  private static final Set<String> KEEP_COMMAND_POSITION = Set.of("if", "then", "elif", "else", "fi", "do", "done",
      "while", "until", "!", "{", "}", "time");

  /** How the shell uses a value. */
  enum Use { TEXT, INTEGER, NAME }

  /** A value reference that remains in the command: argument n (1-based) and how it is used. */
  record Reference(int arg, Use use) {}

  /** A reference the shell could never deliver; offset into the text read. */
  record Problem(int offset, String message) {}

  /**
   * The command to run, its references in order, whether the command evaluates arithmetic or names through
   * anything but a reference, and the problems found.
   */
  record Result(String script, List<Reference> references, boolean evaluatesIndirectly, List<Problem> problems) {}

  private enum Kind { CMD, DBRACKET, DQ, SQ, ANSI, PARAM, ARITH, HEREDOC }

  private enum Mode { PLAIN, ARITHMETIC, DECLARE, NAMES, TEST, PRINTF, CODE, SHELL, OTHER }

  private enum CaseState { SUBJECT, PATTERN, BODY }

  private static final class Ref {
    final int arg;
    final int offset;
    Use use;

    Ref(int arg, int offset, Use use) {
      this.arg = arg;
      this.offset = offset;
      this.use = use;
    }
  }

  private static final class Word {
    final StringBuilder text = new StringBuilder();
    boolean plain = true;
    boolean dynamic;
    String beforeEquals;
    boolean dynamicBeforeEquals;
    final List<Ref> refs = new ArrayList<>();
    final List<Ref> refsBeforeEquals = new ArrayList<>();
  }

  private static final class Command {
    String name;
    Mode mode = Mode.PLAIN;
    Word current;
    Word previous;
    boolean nextNumeric;
    boolean nextName;
    boolean nextOptionArgument;
    boolean optionArgumentIsName;
    boolean optionArgumentIsCode;
    boolean nextRedirectTarget;
    boolean declaresAssociative;
    boolean scriptNext;
    int arguments;
  }

  private static final class Heredoc {
    final String delimiter;
    final boolean stripTabs;
    final boolean quoted;

    Heredoc(String delimiter, boolean stripTabs, boolean quoted) {
      this.delimiter = delimiter;
      this.stripTabs = stripTabs;
      this.quoted = quoted;
    }
  }

  private static final class Frame {
    final Kind kind;
    /** CMD: 0 at the top, ')' or '`'; ARITH: ')' for "))", ']' or '}' (an offset, closed by its ${ }). */
    final char closer;
    /** The word this frame's text belongs to (quotes, ${ } and subscripts inside a word), if any. */
    Word word;
    Command cmd;
    String arrayName;
    Deque<CaseState> cases;
    int depth;
    boolean numeric = true;
    boolean sawName;
    boolean hasReference;
    int paramState;
    final StringBuilder paramName = new StringBuilder();
    boolean inDoubleQuotes;
    Heredoc heredoc;

    Frame(Kind kind, char closer) {
      this.kind = kind;
      this.closer = closer;
      if (kind == Kind.CMD || kind == Kind.DBRACKET) {
        cmd = new Command();
        cases = new ArrayDeque<>();
      }
    }
  }

  private final String s;
  private final List<String> sources;
  private final StringBuilder out = new StringBuilder();
  private final Deque<Frame> stack = new ArrayDeque<>();
  private final List<Ref> refs = new ArrayList<>();
  private final List<Problem> problems = new ArrayList<>();
  private final Deque<Heredoc> pending = new ArrayDeque<>();
  private final Set<String> associative = new HashSet<>();
  private boolean evaluatesIndirectly;
  private boolean closing;
  /** Where a line joined to the one before it by backslash-newline starts (it cannot end a heredoc). */
  private int continuedLine = -1;
  private int i;

  private ShellLexer(String text, List<String> sources) {
    this.s = text;
    this.sources = sources;
  }

  /** The reference text for argument n, before it is placed. */
  static String placeholder(int n) {
    return "${" + ShellTemplate.var(n) + "}";
  }

  /**
   * Reads a command in which the values appear as {@link #placeholder} references; sources.get(n - 1) is the
   * template that gives argument n (used in messages). Placeholders with no source are left as written.
   */
  static Result read(String text, List<String> sources) {
    return new ShellLexer(text, sources).run();
  }

  private Result run() {
    stack.push(new Frame(Kind.CMD, (char) 0));
    while (i < s.length()) {
      if (reference()) {
        continue;
      }
      Frame f = stack.peek();
      switch (f.kind) {
        case CMD, DBRACKET -> command(f);
        case DQ -> doubleQuoted();
        case SQ -> singleQuoted();
        case ANSI -> ansiQuoted();
        case PARAM -> parameter(f);
        case ARITH -> arithmetic(f);
        case HEREDOC -> heredoc(f);
      }
    }
    closing = true;
    while (!stack.isEmpty()) {
      close(stack.pop());
    }
    List<Reference> list = new ArrayList<>();
    for (Ref r : refs) {
      list.add(new Reference(r.arg, r.use));
    }
    return new Result(out.toString(), List.copyOf(list), evaluatesIndirectly, List.copyOf(problems));
  }

  // ---------------------------------------------------------------------------------------------------------
  // References

  /** The argument number of a placeholder starting at position p, or 0. */
  private int placeholderAt(int p) {
    if (p >= s.length() || s.charAt(p) != '$' || !s.startsWith("${LOOPFLOW_ARG_", p)) {
      return 0;
    }
    Matcher m = PLACEHOLDER.matcher(s).region(p, s.length());
    if (!m.lookingAt()) {
      return 0;
    }
    int n = Integer.parseInt(m.group(1));
    return n >= 1 && n <= sources.size() ? n : 0;
  }

  private int placeholderEnd(int p) {
    Matcher m = PLACEHOLDER.matcher(s).region(p, s.length());
    return m.lookingAt() ? m.end() : p;
  }

  private boolean reference() {
    int n = placeholderAt(i);
    if (n == 0) {
      return false;
    }
    int at = i;
    i = placeholderEnd(i);
    Frame top = stack.peek();
    if (top.kind == Kind.HEREDOC && top.heredoc.quoted) {
      problems.add(new Problem(at, sources.get(n - 1) + " is in the body of a heredoc whose delimiter is quoted ("
          + top.heredoc.delimiter + "), where the shell expands nothing, so the value would never arrive; use an "
          + "unquoted delimiter (<<" + top.heredoc.delimiter + ") and write any other $, ` and \\ in the body as "
          + "\\$, \\` and \\\\"));
      return true;
    }
    Ref r = new Ref(n, at, Use.TEXT);
    refs.add(r);
    r.use = owner(r);
    String ref = placeholder(n);
    out.append(switch (top.kind) {
      case SQ -> "'\"" + ref + "\"'";
      case ANSI -> "'\"" + ref + "\"$'";
      case DQ, HEREDOC -> ref;
      case ARITH -> top.numeric ? ref : "\"" + ref + "\"";
      default -> "\"" + ref + "\"";
    });
    return true;
  }

  /** Finds what the reference belongs to and how it is used there. */
  private Use owner(Ref r) {
    for (Frame f : stack) {
      switch (f.kind) {
        case DQ, SQ, ANSI, PARAM -> {
          continue;
        }
        case ARITH -> {
          if (f.numeric) {
            return Use.INTEGER;
          }
          f.hasReference = true;
          return Use.TEXT;
        }
        case HEREDOC -> {
          return Use.TEXT;
        }
        case CMD, DBRACKET -> {
          Word w = word(f);
          w.plain = false;
          w.refs.add(r);
          if (w.beforeEquals == null) {
            w.refsBeforeEquals.add(r);
          }
          return f.cmd.mode == Mode.ARITHMETIC ? Use.INTEGER : Use.TEXT;
        }
        default -> throw new IllegalStateException(f.kind.name());
      }
    }
    return Use.TEXT;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Output and words

  private Word word(Frame f) {
    if (f.cmd.current == null) {
      f.cmd.current = new Word();
    }
    return f.cmd.current;
  }

  /** The word the text at the top of the stack belongs to, if any. */
  private Word collector() {
    Frame top = stack.peek();
    return switch (top.kind) {
      case CMD, DBRACKET -> word(top);
      case DQ, SQ, ANSI, PARAM -> top.word;
      case ARITH -> top.closer == ']' || top.closer == '}' ? top.word : null;
      case HEREDOC -> null;
    };
  }

  private void emit(char c) {
    out.append(c);
    Word w = collector();
    if (w != null) {
      w.text.append(c);
    }
    i++;
  }

  private void emit(String text) {
    out.append(text);
    Word w = collector();
    if (w != null) {
      w.text.append(text);
    }
    i += text.length();
  }

  private void push(Frame f) {
    f.word = collector();
    stack.push(f);
  }

  private void markNotPlain() {
    Frame top = stack.peek();
    if (top.kind == Kind.CMD || top.kind == Kind.DBRACKET) {
      word(top).plain = false;
    }
  }

  /** Marks the innermost word or arithmetic as containing an expansion of its own. */
  private void markDynamic() {
    for (Frame f : stack) {
      switch (f.kind) {
        case DQ, SQ, ANSI, PARAM -> {
          continue;
        }
        case ARITH -> {
          f.sawName = true;
          return;
        }
        case CMD, DBRACKET -> {
          Word w = word(f);
          w.dynamic = true;
          w.plain = false;
          return;
        }
        default -> {
          return;
        }
      }
    }
  }

  private void popTo(Frame target) {
    while (true) {
      Frame f = stack.pop();
      close(f);
      if (f == target) {
        return;
      }
    }
  }

  private void close(Frame f) {
    switch (f.kind) {
      case CMD, DBRACKET -> {
        boolean was = closing;
        closing = true; // a last word "[[" opens nothing once its command is over
        endWord(f);
        closing = was;
      }
      case ARITH -> {
        if (f.numeric ? f.sawName : f.hasReference) {
          evaluatesIndirectly = true;
        }
      }
      default -> { }
    }
  }

  private boolean isBlank(char c) {
    return c == ' ' || c == '\t';
  }

  private char at(int p) {
    return p < s.length() ? s.charAt(p) : 0;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Contexts

  private void command(Frame f) {
    char c = s.charAt(i);
    boolean db = f.kind == Kind.DBRACKET;
    Command cmd = f.cmd;
    if (c == '\\') {
      escape(f, false);
      return;
    }
    if (isBlank(c)) {
      endWord(f);
      out.append(c);
      i++;
      return;
    }
    if (c == '\n') {
      endWord(f);
      if (!db && !inCasePattern(f)) {
        endCommand(f);
      }
      out.append(c);
      i++;
      if (!db && !pending.isEmpty()) {
        startHeredoc();
      }
      return;
    }
    if (c == '#' && cmd.current == null && !db) {
      comment();
      return;
    }
    if (c == '\'' || c == '"') {
      word(f).plain = false;
      emit(c);
      push(new Frame(c == '"' ? Kind.DQ : Kind.SQ, c));
      return;
    }
    if (c == '$') {
      word(f);
      dollar(true);
      return;
    }
    if (c == '`') {
      word(f);
      backquote();
      return;
    }
    if (db) {
      if (cmd.current == null && s.startsWith("]]", i) && delimiterAt(i + 2)) {
        popTo(f);
        out.append("]]");
        i += 2;
        return;
      }
      if ((c == '&' && at(i + 1) == '&') || (c == '|' && at(i + 1) == '|')) {
        endWord(f);
        cmd.previous = null;
        out.append(c).append(c);
        i += 2;
        return;
      }
      if (c == '[' && subscriptStart(f)) {
        return;
      }
      emit(c);
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
      endWord(f);
      if (inCasePattern(f)) {
        f.cases.pop();
        f.cases.push(CaseState.BODY);
        endCommand(f);
        out.append(c);
        i++;
        return;
      }
      if (f.closer == ')') {
        popTo(f);
        out.append(c);
        i++;
        return;
      }
      out.append(c);
      i++;
      return;
    }
    if (c == '[' && subscriptStart(f)) {
      return;
    }
    Word w = word(f);
    if (c == '=' && w.beforeEquals == null) {
      w.beforeEquals = w.text.toString();
      w.dynamicBeforeEquals = w.dynamic;
    }
    emit(c);
  }

  private boolean delimiterAt(int p) {
    char c = at(p);
    return c == 0 || isBlank(c) || c == '\n' || c == ';' || c == '&' || c == '|' || c == ')' || c == '<' || c == '>';
  }

  /** A backslash outside single quotes: the pair is taken as it is (a line continuation, an escaped character). */
  private void escape(Frame f, boolean inQuotes) {
    if (placeholderAt(i + 1) != 0) {
      // A backslash right before a value would escape the quote or $ the reference starts with: keep it literal.
      out.append("\\\\");
      i++;
      if (!inQuotes && (f.kind == Kind.CMD || f.kind == Kind.DBRACKET)) {
        word(f).plain = false;
      }
      return;
    }
    if (i + 1 >= s.length()) {
      emit('\\');
      return;
    }
    if (s.charAt(i + 1) == '\n' && (f.kind == Kind.CMD || f.kind == Kind.DBRACKET)) {
      out.append("\\\n");
      i += 2;
      return;
    }
    if (s.charAt(i + 1) == '\n' && f.kind == Kind.HEREDOC) {
      continuedLine = i + 2; // bash joins the lines before it looks for the delimiter
    }
    if (f.kind == Kind.CMD || f.kind == Kind.DBRACKET) {
      word(f).plain = false;
    }
    emit(s.substring(i, i + 2));
  }

  private void comment() {
    // A # that starts a word runs to the end of the line; a value in it is dropped: it would do nothing there,
    // and a newline in it must not end the comment early.
    while (i < s.length() && s.charAt(i) != '\n') {
      if (placeholderAt(i) != 0) {
        i = placeholderEnd(i);
        continue;
      }
      out.append(s.charAt(i));
      i++;
    }
  }

  private void dollar(boolean ansiAllowed) {
    if (placeholderAt(i + 1) != 0) {
      // "$" + reference would read as $$ or $"...": keep the dollar sign literal.
      out.append("\\$");
      i++;
      return;
    }
    if (ansiAllowed && (at(i + 1) == '\'' || at(i + 1) == '"')) {
      markNotPlain();
    }
    if (ansiAllowed && at(i + 1) == '\'') {
      emit("$'");
      push(new Frame(Kind.ANSI, '\''));
      return;
    }
    if (ansiAllowed && at(i + 1) == '"') {
      emit("$\"");
      push(new Frame(Kind.DQ, '"'));
      return;
    }
    markDynamic();
    if (s.startsWith("$((", i)) {
      emit("$((");
      push(new Frame(Kind.ARITH, ')'));
    } else if (s.startsWith("$(", i)) {
      emit("$(");
      push(new Frame(Kind.CMD, ')'));
    } else if (s.startsWith("${", i)) {
      emit("${");
      Frame p = new Frame(Kind.PARAM, '}');
      p.inDoubleQuotes = inDoubleQuotes();
      push(p);
    } else if (s.startsWith("$[", i)) {
      emit("$[");
      push(new Frame(Kind.ARITH, ']'));
    } else {
      emit('$');
    }
  }

  /** True when the text at the top of the stack is inside double quotes (or an unquoted heredoc body). */
  private boolean inDoubleQuotes() {
    for (Frame f : stack) {
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

  private void backquote() {
    // Bash finds the closing backquote before it parses what is between, so it closes whatever is open inside.
    Frame open = null;
    for (Frame f : stack) {
      if (f.kind == Kind.CMD && f.closer == '`') {
        open = f;
        break;
      }
    }
    if (open != null) {
      popTo(open);
      out.append('`');
      i++;
      return;
    }
    Frame top = stack.peek();
    if (top.kind == Kind.SQ || top.kind == Kind.ANSI || top.kind == Kind.HEREDOC && top.heredoc.quoted) {
      emit('`');
      return;
    }
    markDynamic();
    emit('`');
    push(new Frame(Kind.CMD, '`'));
  }

  private void doubleQuoted() {
    Frame f = stack.peek();
    char c = s.charAt(i);
    switch (c) {
      case '"' -> {
        emit(c);
        stack.pop();
      }
      case '\\' -> escape(f, true);
      case '$' -> dollar(false);
      case '`' -> backquote();
      default -> emit(c);
    }
  }

  private void singleQuoted() {
    char c = s.charAt(i);
    emit(c);
    if (c == '\'') {
      stack.pop();
    }
  }

  private void ansiQuoted() {
    char c = s.charAt(i);
    if (c == '\\') {
      escape(stack.peek(), true);
      return;
    }
    emit(c);
    if (c == '\'') {
      stack.pop();
    }
  }

  private void parameter(Frame f) {
    char c = s.charAt(i);
    switch (f.paramState) {
      case 0 -> {
        f.paramState = 1;
        if (c == '!' && at(i + 1) != '}') {
          // ${!name}: the value of name is taken as a variable name, subscript included.
          evaluatesIndirectly = true;
          emit(c);
        } else if (c == '#' && at(i + 1) != '}') {
          emit(c);
        }
      }
      case 1 -> {
        boolean nameChar = Character.isLetterOrDigit(c) && c < 128 || c == '_';
        boolean special = f.paramName.isEmpty() && "@*#?$!-".indexOf(c) >= 0;
        if (nameChar || special) {
          f.paramName.append(c);
          emit(c);
          if (special) {
            f.paramState = 2;
          }
        } else {
          f.paramState = 2;
        }
      }
      case 2 -> {
        if (c == '}') {
          emit(c);
          stack.pop();
        } else if (c == '[') {
          emit(c);
          Frame sub = new Frame(Kind.ARITH, ']');
          sub.numeric = !associative.contains(f.paramName.toString());
          push(sub);
        } else if (c == ':' && "-=?+".indexOf(at(i + 1)) >= 0) {
          emit(s.substring(i, i + 2));
          f.paramState = 3;
        } else if (c == ':') {
          emit(c);
          push(new Frame(Kind.ARITH, '}'));
        } else {
          f.paramState = 3;
          emit(c);
        }
      }
      default -> {
        switch (c) {
          case '}' -> {
            emit(c);
            stack.pop();
          }
          case '"' -> {
            emit(c);
            push(new Frame(Kind.DQ, '"'));
          }
          case '\'' -> {
            emit(c);
            // Inside double quotes, ${x:-'...'} keeps the single quotes as text.
            if (!f.inDoubleQuotes) {
              push(new Frame(Kind.SQ, '\''));
            }
          }
          case '\\' -> escape(f, true);
          case '$' -> dollar(!f.inDoubleQuotes);
          case '`' -> backquote();
          default -> emit(c);
        }
      }
    }
  }

  private void arithmetic(Frame f) {
    char c = s.charAt(i);
    if (f.closer == ')') {
      if (c == '(') {
        f.depth++;
      } else if (c == ')') {
        if (f.depth > 0) {
          f.depth--;
        } else {
          out.append(at(i + 1) == ')' ? "))" : ")");
          i += at(i + 1) == ')' ? 2 : 1;
          popTo(f);
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
          emit(c);
          popTo(f);
          return;
        }
      }
    } else {
      if (c == '(') {
        f.depth++;
      } else if (c == ')' && f.depth > 0) {
        f.depth--;
      } else if (c == '}' && f.depth == 0) {
        popTo(f); // the offset ends where its ${ } does; the parameter frame takes the brace
        return;
      }
    }
    switch (c) {
      case '"' -> {
        emit(c);
        push(new Frame(Kind.DQ, '"'));
      }
      case '\'' -> {
        emit(c);
        push(new Frame(Kind.SQ, '\''));
      }
      case '\\' -> escape(f, true);
      case '$' -> dollar(false);
      case '`' -> backquote();
      default -> {
        if (Character.isLetter(c) || c == '_') {
          f.sawName = true;
        }
        emit(c);
      }
    }
  }

  private void heredoc(Frame f) {
    Heredoc h = f.heredoc;
    if ((i == 0 || s.charAt(i - 1) == '\n') && i != continuedLine) {
      int eol = s.indexOf('\n', i);
      if (eol < 0) {
        eol = s.length();
      }
      String line = s.substring(i, eol);
      String cmp = h.stripTabs ? line.replaceFirst("^\t+", "") : line;
      if (cmp.equals(h.delimiter)) {
        out.append(line);
        i = eol;
        if (i < s.length()) {
          out.append('\n');
          i++;
        }
        stack.pop();
        if (!pending.isEmpty()) {
          startHeredoc();
        }
        return;
      }
    }
    char c = s.charAt(i);
    if (h.quoted) {
      out.append(c);
      i++;
      return;
    }
    switch (c) {
      case '\\' -> escape(f, true);
      case '$' -> dollar(false);
      case '`' -> backquote();
      default -> {
        out.append(c);
        i++;
      }
    }
  }

  private void startHeredoc() {
    Frame h = new Frame(Kind.HEREDOC, (char) 0);
    h.heredoc = pending.poll();
    stack.push(h);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Operators, redirections, parentheses

  private boolean inCasePattern(Frame f) {
    return f.cases != null && !f.cases.isEmpty() && f.cases.peek() == CaseState.PATTERN;
  }

  private void endCommand(Frame f) {
    f.cmd = new Command();
  }

  private void operator(Frame f, char c) {
    endWord(f);
    char n = at(i + 1);
    if (c == ';' && (n == ';' || n == '&')) {
      int len = n == ';' && at(i + 2) == '&' ? 3 : 2;
      if (!f.cases.isEmpty() && f.cases.peek() == CaseState.BODY) {
        f.cases.pop();
        f.cases.push(CaseState.PATTERN);
      }
      out.append(s, i, i + len);
      i += len;
      endCommand(f);
      return;
    }
    if (c == '|' && inCasePattern(f)) {
      out.append(c);
      i++;
      return;
    }
    if (c == '&' && n == '>') {
      redirection(f);
      return;
    }
    int len = n == c || c == '|' && n == '&' ? 2 : 1;
    out.append(s, i, i + len);
    i += len;
    endCommand(f);
  }

  private void redirection(Frame f) {
    Word w = f.cmd.current;
    if (w != null && w.plain && w.refs.isEmpty() && !w.text.isEmpty() && w.text.chars().allMatch(Character::isDigit)) {
      f.cmd.current = null; // a file descriptor number (2>...), not an argument
    } else {
      endWord(f);
    }
    if (s.startsWith("<<<", i)) {
      out.append("<<<");
      i += 3;
      f.cmd.nextRedirectTarget = true;
      return;
    }
    if (s.startsWith("<<", i)) {
      heredocOperator(f);
      return;
    }
    if (s.startsWith("<(", i) || s.startsWith(">(", i)) {
      word(f);
      markDynamic();
      emit(s.substring(i, i + 2));
      push(new Frame(Kind.CMD, ')'));
      return;
    }
    int len = 1;
    if (s.startsWith("&>>", i)) {
      len = 3;
    } else if (s.startsWith("&>", i) || s.startsWith(">>", i) || s.startsWith(">&", i) || s.startsWith(">|", i)
        || s.startsWith("<&", i) || s.startsWith("<>", i)) {
      len = 2;
    }
    out.append(s, i, i + len);
    i += len;
    f.cmd.nextRedirectTarget = true;
  }

  private void heredocOperator(Frame f) {
    boolean strip = s.startsWith("<<-", i);
    out.append(strip ? "<<-" : "<<");
    i += strip ? 3 : 2;
    while (i < s.length() && isBlank(s.charAt(i))) {
      out.append(s.charAt(i));
      i++;
    }
    StringBuilder delimiter = new StringBuilder();
    boolean quoted = false;
    while (i < s.length()) {
      int n = placeholderAt(i);
      if (n != 0) {
        problems.add(new Problem(i, sources.get(n - 1) + " cannot be a heredoc delimiter; write the delimiter in "
            + "the command"));
        i = placeholderEnd(i);
        continue;
      }
      char c = s.charAt(i);
      if (isBlank(c) || c == '\n' || ";&|()<>".indexOf(c) >= 0) {
        break;
      }
      if (c == '\'' || c == '"') {
        quoted = true;
        int end = s.indexOf(c, i + 1);
        if (end < 0) {
          end = s.length() - 1;
        }
        delimiter.append(s, i + 1, Math.max(i + 1, end));
        out.append(s, i, end + 1);
        i = end + 1;
      } else if (c == '\\' && i + 1 < s.length()) {
        quoted = true;
        delimiter.append(s.charAt(i + 1));
        out.append(s, i, i + 2);
        i += 2;
      } else {
        delimiter.append(c);
        out.append(c);
        i++;
      }
    }
    if (!delimiter.isEmpty() || quoted) {
      pending.add(new Heredoc(delimiter.toString(), strip, quoted));
    }
  }

  private void openParen(Frame f) {
    Word w = f.cmd.current;
    if (w != null && w.beforeEquals != null && w.text.length() == w.beforeEquals.length() + 1
        && ASSIGNMENT_TARGET.matcher(w.beforeEquals).matches()) {
      // name=( ... ): an array literal; [i]=v elements have arithmetic subscripts.
      String name = w.beforeEquals.replaceFirst("\\+$", "").replaceFirst("\\[.*$", "");
      emit('(');
      Frame a = new Frame(Kind.CMD, ')');
      a.arrayName = name;
      push(a);
      return;
    }
    if (inCasePattern(f)) {
      out.append('(');
      i++;
      return;
    }
    endWord(f); // '(' is a metacharacter: it always ends the word before it (if((x)) is "if" then "((")
    if (at(i + 1) == '(') {
      // (( ... )) and for (( ... )): arithmetic. A nested subshell written "((" is read as arithmetic too, which
      // only makes its values stricter.
      if (f.cmd.name == null) {
        f.cmd.name = "((";
      }
      out.append("((");
      i += 2;
      stack.push(new Frame(Kind.ARITH, ')'));
      return;
    }
    Matcher fn = FUNCTION_PARENS.matcher(s).region(i, s.length());
    if (f.cmd.name != null && fn.lookingAt()) {
      // name() { ...; }: a function definition; its body starts a new command.
      out.append(fn.group());
      i = fn.end();
      endCommand(f);
      return;
    }
    out.append('(');
    i++;
    stack.push(new Frame(Kind.CMD, ')'));
  }

  /** At '[': opens an arithmetic subscript when the word so far is a variable name in a place that takes one. */
  private boolean subscriptStart(Frame f) {
    Command cmd = f.cmd;
    Word w = cmd.current;
    String arrayName;
    if (f.arrayName != null && w == null) {
      arrayName = f.arrayName;
    } else if (w != null && w.plain && w.beforeEquals == null && IDENTIFIER.matcher(w.text).matches()
        && (cmd.name == null && f.arrayName == null || cmd.mode == Mode.DECLARE || cmd.mode == Mode.NAMES
            || cmd.mode == Mode.ARITHMETIC || cmd.nextName)) {
      arrayName = w.text.toString();
    } else {
      return false;
    }
    word(f);
    emit('[');
    Frame sub = new Frame(Kind.ARITH, ']');
    sub.numeric = !associative.contains(arrayName);
    push(sub);
    return true;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Words of a simple command

  private void endWord(Frame f) {
    Command cmd = f.cmd;
    Word w = cmd.current;
    if (w == null) {
      return;
    }
    cmd.current = null;
    // Reserved words count only when unquoted; command names, options and operators count after quote removal
    // ('let', \let and "-gt" are what bash runs and compares).
    String reserved = w.plain ? w.text.toString() : null;
    String t = w.dynamic ? null : unquote(w.text);
    if (f.kind == Kind.DBRACKET) {
      testWord(cmd, w, t, true);
      return;
    }
    if (f.arrayName != null) {
      return;
    }
    if (cmd.nextRedirectTarget) {
      cmd.nextRedirectTarget = false;
      return;
    }
    if (!f.cases.isEmpty()) {
      CaseState state = f.cases.peek();
      if (state == CaseState.SUBJECT) {
        if ("in".equals(reserved)) {
          f.cases.pop();
          f.cases.push(CaseState.PATTERN);
        }
        return;
      }
      if (state == CaseState.PATTERN || cmd.name == null && "esac".equals(reserved)) {
        if ("esac".equals(reserved)) {
          f.cases.pop();
          cmd.name = "esac";
        }
        return;
      }
    }
    if (cmd.name == null) {
      commandWord(f, w, reserved, t);
      return;
    }
    cmd.arguments++;
    if (cmd.arguments == 1 && ("builtin".equals(cmd.name) || "command".equals(cmd.name)) && t != null
        && !t.startsWith("-")) {
      cmd.name = null;
      commandWord(f, w, reserved, t);
      return;
    }
    if (cmd.arguments == 1 && "function".equals(cmd.name)) { // function NAME { ...; }: the body starts a command
      endCommand(f);
      return;
    }
    switch (cmd.mode) {
      case DECLARE -> declareWord(cmd, w, t);
      case NAMES -> namesWord(cmd, w, t);
      case TEST -> testWord(cmd, w, t, false);
      case CODE -> code(w, cmd.name + " runs its arguments as shell code, so the value would be parsed as code; "
          + "set a variable first and refer to it inside the code: v=" + "VALUE; " + cmd.name + " '... \"$v\" ...'");
      case SHELL -> {
        if (t != null && t.startsWith("-") && t.length() > 1) {
          cmd.scriptNext |= t.indexOf('c') > 0;
        } else if (cmd.scriptNext) {
          cmd.scriptNext = false;
          code(w, "the script given to " + cmd.name + " -c is parsed as shell code, so the value would be too; pass it "
              + "as an argument instead: " + cmd.name + " -c '... \"$1\" ...' _ VALUE");
        }
      }
      case PRINTF -> {
        if (cmd.nextName) {
          cmd.nextName = false;
          nameWord(w, w.refs, w.dynamic);
        } else if ("-v".equals(t)) {
          cmd.nextName = true;
        }
      }
      default -> { }
    }
  }

  private void commandWord(Frame f, Word w, String reserved, String t) {
    Command cmd = f.cmd;
    if (reserved != null && KEEP_COMMAND_POSITION.contains(reserved)) {
      return;
    }
    if (w.beforeEquals != null && ASSIGNMENT_TARGET.matcher(w.beforeEquals).matches()) {
      return; // an assignment before the command name
    }
    if ("case".equals(reserved)) {
      f.cases.push(CaseState.SUBJECT);
      cmd.name = reserved;
      return;
    }
    if ("[[".equals(reserved)) {
      cmd.name = reserved;
      if (!closing) {
        stack.push(new Frame(Kind.DBRACKET, ']'));
      }
      return;
    }
    cmd.name = t == null ? "" : t;
    cmd.mode = switch (cmd.name) {
      case "let" -> {
        evaluatesIndirectly = true;
        yield Mode.ARITHMETIC;
      }
      case "declare", "typeset", "local" -> Mode.DECLARE;
      case "read", "unset", "mapfile", "readarray" -> Mode.NAMES;
      case "test", "[" -> Mode.TEST;
      case "printf" -> Mode.PRINTF;
      case "eval", "trap" -> Mode.CODE;
      default -> SHELLS.contains(cmd.name.substring(cmd.name.lastIndexOf('/') + 1)) ? Mode.SHELL : Mode.OTHER;
    };
  }

  /** A word that a command runs as shell code: a value in it could not stay data. */
  private void code(Word w, String why) {
    for (Ref r : w.refs) {
      String v = sources.get(r.arg - 1);
      problems.add(new Problem(r.offset, v + " is used in shell code: " + why.replace("VALUE", v)));
    }
  }

  /** The word after quote removal, or null when it has quoting this reader does not undo ($'...'). */
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

  /** A word the shell takes as a variable name: its values must be names, and a computed name is indirect. */
  private void nameWord(Word w, List<Ref> part, boolean dynamic) {
    for (Ref r : part) {
      if (r.use == Use.TEXT) {
        r.use = Use.NAME;
      }
    }
    if (dynamic || w.text.indexOf("[") >= 0) {
      evaluatesIndirectly = true;
    }
  }

  private void declareWord(Command cmd, Word w, String t) {
    if (t != null && t.startsWith("-") && t.length() > 1) {
      if (t.indexOf('i') > 0) {
        cmd.mode = Mode.ARITHMETIC; // every value assigned now is evaluated as arithmetic
        evaluatesIndirectly = true;
      }
      if (t.indexOf('n') > 0) {
        evaluatesIndirectly = true; // a name reference resolves its value as a variable name
      }
      if (t.indexOf('A') > 0) {
        cmd.declaresAssociative = true;
      }
      return;
    }
    if (w.beforeEquals != null) {
      nameWord(w, w.refsBeforeEquals, w.dynamicBeforeEquals);
      if (w.beforeEquals.indexOf('[') >= 0) {
        evaluatesIndirectly = true;
      }
    } else {
      nameWord(w, w.refs, w.dynamic);
    }
    if (cmd.declaresAssociative) {
      String name = w.beforeEquals != null ? w.beforeEquals : w.text.toString();
      if (IDENTIFIER.matcher(name).matches()) {
        associative.add(name);
      }
    }
  }

  private void namesWord(Command cmd, Word w, String t) {
    if (cmd.nextOptionArgument) {
      cmd.nextOptionArgument = false;
      if (cmd.optionArgumentIsName) {
        nameWord(w, w.refs, w.dynamic);
      } else if (cmd.optionArgumentIsCode) {
        code(w, cmd.name + " -C runs its callback as shell code, so the value would be parsed as code");
      }
      return;
    }
    if (t != null && t.startsWith("-") && t.length() > 1) {
      char last = t.charAt(t.length() - 1);
      String takesArgument = switch (cmd.name) {
        case "read" -> "adinNptu";
        case "mapfile", "readarray" -> "dnOsuCc";
        default -> "";
      };
      if (takesArgument.indexOf(last) >= 0) {
        cmd.nextOptionArgument = true;
        cmd.optionArgumentIsName = "read".equals(cmd.name) && last == 'a';
        cmd.optionArgumentIsCode = !"read".equals(cmd.name) && last == 'C';
      }
      return;
    }
    nameWord(w, w.refs, w.dynamic);
  }

  private void testWord(Command cmd, Word w, String t, boolean evaluates) {
    if (t != null && ARITHMETIC_OPERATORS.contains(t)) {
      if (cmd.previous != null) {
        numericOperand(cmd.previous, evaluates);
      }
      cmd.nextNumeric = true;
      cmd.nextName = false;
      cmd.previous = w;
      return;
    }
    if (cmd.nextNumeric) {
      cmd.nextNumeric = false;
      numericOperand(w, evaluates);
    } else if (cmd.nextName) {
      cmd.nextName = false;
      nameWord(w, w.refs, w.dynamic);
    } else if ("-v".equals(t)) {
      cmd.nextName = true;
    }
    cmd.previous = w;
  }

  /** An operand of -eq and friends: test and [ compare integers; [[ ]] evaluates both sides as arithmetic. */
  private void numericOperand(Word w, boolean evaluates) {
    for (Ref r : w.refs) {
      r.use = Use.INTEGER;
    }
    if (evaluates && (w.dynamic || w.text.chars().anyMatch(ch -> Character.isLetter(ch) || ch == '_'))) {
      evaluatesIndirectly = true;
    }
  }
}
