package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.internal.nodes.ShellWord.Ref;
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
 *  - refused in a heredoc with a quoted delimiter (nothing is expanded there, the value would never arrive), as a
 *    heredoc delimiter, and in code that eval, trap or sh -c run (ShellWords).
 * It also classifies each reference: INTEGER where bash evaluates the text as arithmetic (operands are evaluated
 * recursively, and an array subscript met on the way is expanded, $(...) included), NAME where bash takes the
 * text as a variable name (whose subscript is evaluated the same way), TEXT everywhere else. And it notes whether
 * the command evaluates arithmetic or variable names through anything but a reference (a variable, $(...), a
 * name): then a value may reach that evaluation indirectly (x=VALUE; echo $((x))), and every value must be free of
 * subscripts that could expand.
 *
 * This class follows the contexts (quotes, $( ), backquotes, ${ }, arithmetic, [[ ]], heredocs, comments);
 * ShellWords decides what the words of each simple command mean. docs/dsl.md §3.6 lists what is recognised.
 * Where this reading is simpler than the shell's it errs towards more checking (a nested subshell written as
 * ((...)) is taken for arithmetic); the only thing it ever emits in place of a value is a reference to it.
 */
final class ShellLexer {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{LOOPFLOW_ARG_([0-9]{1,6})}");
  private static final Pattern FUNCTION_PARENS = Pattern.compile("\\([ \\t]*\\)");

  /** How the shell uses a value. */
  enum Use { TEXT, INTEGER, NAME }

  /** A value reference that remains in the command: argument n (1-based) and how it is used. */
  record Reference(int arg, Use use) {}

  /** A reference the shell could never deliver as data; offset into the text read. */
  record Problem(int offset, String message) {}

  /**
   * The command to run, its references in order, whether the command evaluates arithmetic or names through
   * anything but a reference, and the problems found.
   */
  record Result(String script, List<Reference> references, boolean evaluatesIndirectly, List<Problem> problems) {}

  private enum Kind { CMD, DBRACKET, DQ, SQ, ANSI, PARAM, ARITH, HEREDOC }

  private record Heredoc(String delimiter, boolean stripTabs, boolean quoted) {}

  private static final class Frame {
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
    Heredoc heredoc;

    Frame(Kind kind, char closer) {
      this.kind = kind;
      this.closer = closer;
    }
  }

  private final String s;
  private final List<String> sources;
  private final StringBuilder out = new StringBuilder();
  private final Deque<Frame> stack = new ArrayDeque<>();
  private final List<Ref> refs;
  private final List<Problem> problems = new ArrayList<>();
  private final Deque<Heredoc> pending = new ArrayDeque<>();
  private final Set<String> associative;
  private boolean evaluatesIndirectly;
  private boolean closing;
  private int i;

  private final ShellWords.Reader reader = new ShellWords.Reader() {
    @Override
    public void evaluatesIndirectly() {
      evaluatesIndirectly = true;
    }

    @Override
    public void problem(int offset, String message) {
      problems.add(new Problem(offset, message));
    }

    @Override
    public String source(int arg) {
      return sources.get(arg - 1);
    }

    @Override
    public void declareAssociative(String name) {
      associative.add(name);
    }

    @Override
    public void openConditional() {
      Frame f = new Frame(Kind.DBRACKET, ']');
      f.words = ShellWords.conditional(this);
      stack.push(f);
    }
  };

  private ShellLexer(String text, List<String> sources, List<Ref> refs, Set<String> associative) {
    this.s = text;
    this.sources = sources;
    this.refs = refs;
    this.associative = associative;
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
    return new ShellLexer(text, sources, new ArrayList<>(), new HashSet<>()).run();
  }

  private Result run() {
    return run(commands((char) 0, null));
  }

  /** Reads the whole text, starting in the given context. */
  private Result run(Frame first) {
    stack.push(first);
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

  private Frame commands(char closer, String arrayName) {
    Frame f = new Frame(Kind.CMD, closer);
    f.words = arrayName == null ? ShellWords.commands(reader) : ShellWords.arrayLiteral(reader, arrayName);
    return f;
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
    if (top.kind == Kind.HEREDOC && top.heredoc.quoted()) {
      String d = top.heredoc.delimiter();
      problems.add(new Problem(at, sources.get(n - 1) + " is in the body of a heredoc whose delimiter is quoted ("
          + d + "), where the shell expands nothing, so the value would never arrive; use an unquoted delimiter (<<"
          + d + ") and write any other $, ` and \\ in the body as \\$, \\` and \\\\"));
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
          continue; // quotes and ${x:-...} words pass the value on to what encloses them
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
          return f.words.reference(r);
        }
        default -> throw new IllegalStateException(f.kind.name());
      }
    }
    return Use.TEXT;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Output and words

  /** The word the text at the top of the stack belongs to, if any. */
  private ShellWord collector() {
    Frame top = stack.peek();
    return switch (top.kind) {
      case CMD, DBRACKET -> top.words.word();
      case DQ, SQ, ANSI, PARAM -> top.word;
      case ARITH -> top.closer == ']' || top.closer == '}' ? top.word : null;
      case HEREDOC -> null;
    };
  }

  private void emit(char c) {
    out.append(c);
    ShellWord w = collector();
    if (w != null) {
      w.text.append(c);
    }
    i++;
  }

  private void emit(String text) {
    out.append(text);
    ShellWord w = collector();
    if (w != null) {
      w.text.append(text);
    }
    i += text.length();
  }

  /** Copies text that belongs to no word (blanks, operators). */
  private void pass(int length) {
    out.append(s, i, i + length);
    i += length;
  }

  private void push(Frame f) {
    f.word = collector();
    stack.push(f);
  }

  private void markQuoted() {
    Frame top = stack.peek();
    if (top.kind == Kind.CMD || top.kind == Kind.DBRACKET) {
      top.words.quoted();
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
          f.words.expansion();
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
      case CMD, DBRACKET -> f.words.endWord(true); // a last word "[[" opens nothing once its list is over
      case ARITH -> {
        if (f.numeric ? f.sawName : f.hasReference) {
          evaluatesIndirectly = true;
        }
      }
      default -> { }
    }
  }

  private static boolean isBlank(char c) {
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
    ShellWords words = f.words;
    if (c == '\\') {
      escape(f);
      return;
    }
    if (isBlank(c)) {
      words.endWord(closing);
      pass(1);
      return;
    }
    if (c == '\n') {
      if (db || words.inCasePattern()) {
        words.endWord(closing);
      } else {
        words.endCommand();
      }
      pass(1);
      while (!db && !pending.isEmpty()) {
        heredocBody(pending.poll());
      }
      return;
    }
    if (c == '#' && words.betweenWords() && !db) {
      comment();
      return;
    }
    if (c == '\'' || c == '"') {
      words.quoted();
      emit(c);
      push(new Frame(c == '"' ? Kind.DQ : Kind.SQ, c));
      return;
    }
    if (c == '$') {
      words.word();
      dollar(true);
      return;
    }
    if (c == '`') {
      words.word();
      backquote();
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
        pass(1);
      } else if (f.closer == ')') {
        popTo(f);
        pass(1);
      } else {
        words.endWord(closing);
        pass(1); // an unbalanced ')': the shell reports it
      }
      return;
    }
    if (c == '[' && subscriptStart(f)) {
      return;
    }
    if (c == '=') {
      words.equalsSign();
    }
    emit(c);
  }

  /** Inside [[ ]]: words end at blanks, && and ||; parentheses and < > belong to words (regexes, operators). */
  private void conditional(Frame f, char c) {
    if (f.words.betweenWords() && s.startsWith("]]", i) && delimiterAt(i + 2)) {
      popTo(f);
      pass(2);
      return;
    }
    if ((c == '&' && at(i + 1) == '&') || (c == '|' && at(i + 1) == '|')) {
      f.words.andOr();
      pass(2);
      return;
    }
    if (c == '[' && subscriptStart(f)) {
      return;
    }
    emit(c);
  }

  private boolean delimiterAt(int p) {
    char c = at(p);
    return c == 0 || isBlank(c) || c == '\n' || c == ';' || c == '&' || c == '|' || c == ')' || c == '<' || c == '>';
  }

  /** A backslash outside single quotes: the pair is taken as it is (a line continuation, an escaped character). */
  private void escape(Frame f) {
    boolean inWords = f.kind == Kind.CMD || f.kind == Kind.DBRACKET;
    if (placeholderAt(i + 1) != 0) {
      // A backslash right before a value would escape the quote or $ the reference starts with: keep it literal.
      out.append("\\\\");
      i++;
      if (inWords) {
        f.words.quoted();
      }
      return;
    }
    if (i + 1 >= s.length()) {
      emit('\\');
      return;
    }
    if (s.charAt(i + 1) == '\n' && inWords) {
      pass(2);
      return;
    }
    if (inWords) {
      f.words.quoted();
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
      pass(1);
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
      markQuoted();
      emit(s.substring(i, i + 2));
      push(new Frame(s.charAt(i - 1) == '"' ? Kind.DQ : Kind.ANSI, s.charAt(i - 1)));
      return;
    }
    markDynamic();
    if (s.startsWith("$((", i)) {
      emit("$((");
      push(new Frame(Kind.ARITH, ')'));
    } else if (s.startsWith("$(", i)) {
      emit("$(");
      push(commands(')', null));
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
    Frame top = stack.peek();
    if (top.kind == Kind.SQ || top.kind == Kind.ANSI) {
      emit('`');
      return;
    }
    markDynamic();
    // Bash finds the closing backquote first (a backslash escapes one character, quotes count for nothing), then
    // takes one level of backslashes off \$, \`, \\ (and \" inside double quotes) and parses the result as a
    // command of its own: `echo \$((x))` is arithmetic and \`...\` nests. So does this reader, and it writes
    // the command back with those characters escaped again.
    boolean dq = inDoubleQuotesProper();
    StringBuilder inner = new StringBuilder();
    List<Integer> origins = new ArrayList<>();
    int k = i + 1;
    while (k < s.length() && s.charAt(k) != '`') {
      char c = s.charAt(k);
      if (c == '\\' && k + 1 < s.length()) {
        char n = s.charAt(k + 1);
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
    ShellLexer sub = new ShellLexer(inner.toString(), sources, refs, new HashSet<>(associative));
    Result r = sub.run();
    evaluatesIndirectly |= r.evaluatesIndirectly();
    for (Problem p : r.problems()) {
      problems.add(new Problem(origins.isEmpty() ? i : origins.get(Math.min(p.offset(), origins.size() - 1)),
          p.message()));
    }
    StringBuilder escaped = new StringBuilder("`");
    for (char c : r.script().toCharArray()) {
      if (c == '$' || c == '`' || c == '\\' || dq && c == '"') {
        escaped.append('\\');
      }
      escaped.append(c);
    }
    escaped.append(k < s.length() ? "`" : "");
    out.append(escaped);
    ShellWord w = collector();
    if (w != null) {
      w.text.append(escaped);
    }
    i = Math.min(k + 1, s.length());
  }

  /** True when the top of the stack is inside double quotes (not a heredoc body, where \" keeps its backslash). */
  private boolean inDoubleQuotesProper() {
    for (Frame f : stack) {
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

  private void doubleQuoted() {
    Frame f = stack.peek();
    char c = s.charAt(i);
    switch (c) {
      case '"' -> {
        emit(c);
        stack.pop();
      }
      case '\\' -> escape(f);
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
      escape(stack.peek());
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
        boolean nameChar = c < 128 && Character.isLetterOrDigit(c) || c == '_';
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
          push(new Frame(Kind.ARITH, '}')); // ${x:offset:length}
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
          case '\\' -> escape(f);
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
          pass(at(i + 1) == ')' ? 2 : 1);
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
      case '\\' -> escape(f);
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

  /** Inside a heredoc body (the body alone: its end was found before it was read). */
  private void heredoc(Frame f) {
    char c = s.charAt(i);
    if (f.heredoc.quoted()) {
      pass(1);
      return;
    }
    switch (c) {
      case '\\' -> escape(f);
      case '$' -> dollar(false);
      case '`' -> backquote();
      default -> pass(1);
    }
  }

  /**
   * A heredoc body starting at the current line. Like bash, it first finds the body's end (the first line that is
   * the delimiter, whatever the body holds: a $( still open does not hide it), then reads the body on its own.
   */
  private void heredocBody(Heredoc h) {
    int start = i;
    int end = s.length();
    int after = s.length();
    boolean joined = false;
    for (int p = start; p < s.length(); ) {
      int eol = s.indexOf('\n', p);
      int lineEnd = eol < 0 ? s.length() : eol;
      String line = s.substring(p, lineEnd);
      if (!joined && (h.stripTabs() ? line.replaceFirst("^\t+", "") : line).equals(h.delimiter())) {
        end = p;
        after = eol < 0 ? s.length() : eol + 1;
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
    ShellLexer body = new ShellLexer(s.substring(start, end), sources, refs, new HashSet<>(associative));
    Frame f = new Frame(Kind.HEREDOC, (char) 0);
    f.heredoc = h;
    Result r = body.run(f);
    evaluatesIndirectly |= r.evaluatesIndirectly();
    for (Problem p : r.problems()) {
      problems.add(new Problem(start + p.offset(), p.message()));
    }
    out.append(r.script());
    i = end;
    pass(after - end);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Operators, redirections, parentheses

  private void operator(Frame f, char c) {
    char n = at(i + 1);
    if (c == ';' && (n == ';' || n == '&')) {
      f.words.caseClauseEnd();
      pass(n == ';' && at(i + 2) == '&' ? 3 : 2);
      return;
    }
    if (c == '|' && f.words.inCasePattern()) {
      f.words.endWord(closing);
      pass(1); // alternatives of a case pattern
      return;
    }
    if (c == '&' && n == '>') {
      redirection(f);
      return;
    }
    f.words.endCommand();
    pass(n == c || c == '|' && n == '&' ? 2 : 1);
  }

  private void redirection(Frame f) {
    if (s.startsWith("<<<", i)) {
      f.words.redirection();
      pass(3);
      return;
    }
    if (s.startsWith("<<", i)) {
      f.words.heredoc();
      heredocOperator();
      return;
    }
    if (s.startsWith("<(", i) || s.startsWith(">(", i)) {
      f.words.endWord(closing);
      f.words.expansion();
      emit(s.substring(i, i + 2));
      push(commands(')', null)); // process substitution
      return;
    }
    f.words.redirection();
    int len = 1;
    if (s.startsWith("&>>", i)) {
      len = 3;
    } else if (s.startsWith("&>", i) || s.startsWith(">>", i) || s.startsWith(">&", i) || s.startsWith(">|", i)
        || s.startsWith("<&", i) || s.startsWith("<>", i)) {
      len = 2;
    }
    pass(len);
  }

  private void heredocOperator() {
    boolean strip = s.startsWith("<<-", i);
    pass(strip ? 3 : 2);
    while (i < s.length() && isBlank(s.charAt(i))) {
      pass(1);
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
        end = end < 0 ? s.length() : end;
        delimiter.append(s, i + 1, end);
        pass(Math.min(end + 1, s.length()) - i);
      } else if (c == '\\' && i + 1 < s.length()) {
        quoted = true;
        delimiter.append(s.charAt(i + 1));
        pass(2);
      } else {
        delimiter.append(c);
        pass(1);
      }
    }
    if (!delimiter.isEmpty() || quoted) {
      pending.add(new Heredoc(delimiter.toString(), strip, quoted));
    }
  }

  private void openParen(Frame f) {
    ShellWords words = f.words;
    String array = words.arrayAssignment();
    if (array != null) {
      // name=( ... ): an array literal; [i]=v elements have arithmetic subscripts.
      emit('(');
      push(commands(')', array));
      return;
    }
    if (words.inCasePattern()) {
      pass(1);
      return;
    }
    words.endWord(closing); // '(' is a metacharacter: it ends the word before it (if((x)) is "if" then "((")
    if (at(i + 1) == '(') {
      // (( ... )) and for (( ... )): arithmetic. A nested subshell written "((" is read as arithmetic too, which
      // only makes its values stricter.
      words.compound("((");
      pass(2);
      stack.push(new Frame(Kind.ARITH, ')'));
      return;
    }
    Matcher fn = FUNCTION_PARENS.matcher(s).region(i, s.length());
    if (words.hasCommandName() && fn.lookingAt()) {
      // name() { ...; }: a function definition; its body starts a new command.
      pass(fn.end() - i);
      words.endCommand();
      return;
    }
    pass(1);
    stack.push(commands(')', null));
  }

  /** At '[': opens an arithmetic subscript when the word so far is a variable name in a place that takes one. */
  private boolean subscriptStart(Frame f) {
    String array = f.words.subscriptedArray();
    if (array == null) {
      return false;
    }
    emit('[');
    Frame sub = new Frame(Kind.ARITH, ']');
    sub.numeric = !associative.contains(array);
    push(sub);
    return true;
  }
}
