package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.internal.nodes.ShellFrame.Kind;
import dev.loopflow.core.internal.nodes.ShellWord.Ref;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntUnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/*
 * Reads a shell command the way sh and bash do, far enough to know what the shell will do with each value
 * reference ${LOOPFLOW_ARG_n} in it, and rewrites every reference so that the value arrives as data:
 *  - quoted to suit the context it sits in (outside quotes, in "...", in '...', in $'...', in an unquoted heredoc
 *    body where quotes would be literal, in arithmetic where dash rejects quotes);
 *  - dropped from # comments (a value there would do nothing, and it must not end the comment);
 *  - refused in a heredoc with a quoted delimiter (nothing is expanded there, the value would never arrive), as a
 *    heredoc delimiter, in code that eval, trap or sh -c run, as the command name, assigned to a special variable
 *    (ShellWords), and anywhere in a command that runs code it does not show (read() adds those problems last).
 * It also classifies each reference: INTEGER where bash evaluates the text as arithmetic (operands are evaluated
 * recursively, and an array subscript met on the way is expanded, $(...) included), NAME where bash takes the
 * text as a variable name (whose subscript is evaluated the same way), TEXT everywhere else. And it notes whether
 * the command evaluates arithmetic or variable names through anything but a reference (a variable, $(...), a
 * name): then a value may reach that evaluation indirectly (x=VALUE; echo $((x))), and every value must be free of
 * subscripts that could expand.
 *
 * This class holds one read: the text and the position in it, the output, the stack of contexts (ShellFrame),
 * the references found; it places each reference and reads quotes. The other contexts have their own readers,
 * which move the same position and stack: ShellCommandContext (command lists and [[ ]]: words, operators,
 * redirections, parentheses, comments), ShellExpansions ($( ), $(( )), ${ }, $[ ], backquotes, arithmetic) and
 * ShellHeredocs. ShellWords decides what the words of each simple command mean. The `shell` section of
 * docs/dsl.md lists what is recognised. Where this reading is simpler than the shell's it errs towards more
 * checking (a nested subshell written as ((...)) is taken for arithmetic); the only thing it ever emits in place
 * of a value is a reference to it.
 */
final class ShellLexer {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{LOOPFLOW_ARG_([0-9]{1,6})}");

  /** How the shell uses a value. */
  enum Use { TEXT, INTEGER, NAME, OPERAND }

  /** A value reference that remains in the command: argument n (1-based) and how it is used. */
  record Reference(int arg, Use use) {}

  /** A reference the shell could never deliver as data; offset into the text read. */
  record Problem(int offset, String message) {}

  /**
   * The command to run, its references in order, whether the command evaluates arithmetic or names through
   * anything but a reference, and the problems found.
   */
  record Result(String script, List<Reference> references, boolean evaluatesIndirectly, List<Problem> problems,
      String runsCode) {}

  /** The text read. */
  final String s;
  /** The template of each argument, for messages. */
  final List<String> sources;
  /** The command written back, each value as a reference. */
  final StringBuilder out = new StringBuilder();
  /** The open contexts, innermost first. */
  final Deque<ShellFrame> stack = new ArrayDeque<>();
  /** The references found, shared with the readers of backquotes and heredoc bodies. */
  final List<Ref> refs;
  final List<Problem> problems = new ArrayList<>();
  /** The arrays declared associative so far (their subscripts are keys, not arithmetic). */
  final Set<String> associative;
  boolean evaluatesIndirectly;
  /** What makes the command run code that is not written in it, or null. */
  String runsCode;
  /** The text is over: the frames still open are being closed. */
  boolean closing;
  /** The position in {@code s}. */
  int i;
  final ShellCommandContext command = new ShellCommandContext(this);
  final ShellExpansions expansions = new ShellExpansions(this);
  final ShellHeredocs heredocs = new ShellHeredocs(this);

  private final ShellWords.Reader reader = new ShellWords.Reader() {
    @Override
    public void evaluatesIndirectly() {
      evaluatesIndirectly = true;
    }

    @Override
    public void runsCode(String why) {
      if (runsCode == null) {
        runsCode = why;
      }
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
      ShellFrame f = new ShellFrame(Kind.DBRACKET, ']');
      f.words = ShellWords.conditional(this);
      stack.push(f);
    }
  };

  ShellLexer(String text, List<String> sources, List<Ref> refs, Set<String> associative) {
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
    ShellLexer lx = new ShellLexer(text, sources, new ArrayList<>(), new HashSet<>());
    Result r = lx.run();
    if (r.runsCode() == null) {
      return r;
    }
    // The command runs code it does not show: no value may appear anywhere in it, since any of them could reach
    // that code through a variable, a file or a pipe.
    List<Problem> problems = new ArrayList<>(r.problems());
    Set<Integer> reported = new HashSet<>();
    for (Problem p : r.problems()) {
      reported.add(p.offset());
    }
    for (Ref ref : lx.refs) {
      if (!reported.add(ref.offset)) {
        continue; // already refused where it stands
      }
      problems.add(new Problem(ref.offset, sources.get(ref.arg - 1) + " cannot be used in this command: "
          + r.runsCode() + ", and a value could reach that code through a variable, a file or a pipe; run the "
          + "code in a script node, or give the value to a program that takes it as data"));
    }
    return new Result(r.script(), r.references(), r.evaluatesIndirectly(), List.copyOf(problems), r.runsCode());
  }

  /** After a nested read of text at the given origins: its references' offsets in this text. */
  void adopt(Result r, int refsBefore, IntUnaryOperator origin) {
    evaluatesIndirectly |= r.evaluatesIndirectly();
    if (runsCode == null) {
      runsCode = r.runsCode();
    }
    for (Ref ref : refs.subList(refsBefore, refs.size())) {
      ref.offset = origin.applyAsInt(ref.offset);
    }
  }

  Result run() {
    return run(commands((char) 0, null));
  }

  /** Reads the whole text, starting in the given context. */
  Result run(ShellFrame first) {
    stack.push(first);
    while (i < s.length()) {
      if (reference()) {
        continue;
      }
      ShellFrame f = stack.peek();
      switch (f.kind) {
        case CMD, DBRACKET -> command.read(f);
        case DQ -> doubleQuoted();
        case SQ -> singleQuoted();
        case ANSI -> ansiQuoted();
        case PARAM -> expansions.parameter(f);
        case ARITH -> expansions.arithmetic(f);
        case HEREDOC -> heredocs.body(f);
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
    return new Result(out.toString(), List.copyOf(list), evaluatesIndirectly, List.copyOf(problems), runsCode);
  }

  ShellFrame commands(char closer, String arrayName) {
    ShellFrame f = new ShellFrame(Kind.CMD, closer);
    f.words = arrayName == null ? ShellWords.commands(reader) : ShellWords.arrayLiteral(reader, arrayName);
    return f;
  }

  // ---------------------------------------------------------------------------------------------------------
  // References

  /** The argument number of a placeholder starting at position p, or 0. */
  int placeholderAt(int p) {
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

  int placeholderEnd(int p) {
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
    ShellFrame top = stack.peek();
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
    for (ShellFrame f : stack) {
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
  ShellWord collector() {
    ShellFrame top = stack.peek();
    return switch (top.kind) {
      case CMD, DBRACKET -> top.words.word();
      case DQ, SQ, ANSI, PARAM -> top.word;
      case ARITH -> top.closer == ']' || top.closer == '}' ? top.word : null;
      case HEREDOC -> null;
    };
  }

  void emit(char c) {
    out.append(c);
    ShellWord w = collector();
    if (w != null) {
      w.text.append(c);
    }
    i++;
  }

  void emit(String text) {
    out.append(text);
    ShellWord w = collector();
    if (w != null) {
      w.text.append(text);
    }
    i += text.length();
  }

  /** Copies text that belongs to no word (blanks, operators). */
  void pass(int length) {
    out.append(s, i, i + length);
    i += length;
  }

  void push(ShellFrame f) {
    f.word = collector();
    stack.push(f);
  }

  void markQuoted() {
    ShellFrame top = stack.peek();
    if (top.kind == Kind.CMD || top.kind == Kind.DBRACKET) {
      top.words.quoted();
    }
  }

  /** Marks the innermost word or arithmetic as containing an expansion of its own. */
  void markDynamic() {
    for (ShellFrame f : stack) {
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

  void popTo(ShellFrame target) {
    while (true) {
      ShellFrame f = stack.pop();
      close(f);
      if (f == target) {
        return;
      }
    }
  }

  private void close(ShellFrame f) {
    switch (f.kind) {
      case CMD, DBRACKET -> f.words.close(); // a last word "[[" opens nothing once its list is over
      case ARITH -> {
        if (f.numeric ? f.sawName : f.hasReference) {
          evaluatesIndirectly = true;
        }
      }
      default -> { }
    }
  }

  static boolean isBlank(char c) {
    return c == ' ' || c == '\t';
  }

  char at(int p) {
    return p < s.length() ? s.charAt(p) : 0;
  }

  /** The character at the position. */
  char current() {
    return s.charAt(i);
  }

  /** Whether the text at the position starts with {@code prefix}. */
  boolean lookingAt(String prefix) {
    return s.startsWith(prefix, i);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Escapes and quotes (the other contexts: ShellCommandContext, ShellExpansions, ShellHeredocs)

  /** A backslash outside single quotes: the pair is taken as it is (a line continuation, an escaped character). */
  void escape(ShellFrame f) {
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

  private void doubleQuoted() {
    ShellFrame f = stack.peek();
    char c = s.charAt(i);
    switch (c) {
      case '"' -> {
        emit(c);
        stack.pop();
      }
      case '\\' -> escape(f);
      case '$' -> expansions.dollar(false);
      case '`' -> expansions.backquote();
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

  // ---------------------------------------------------------------------------------------------------------
  // Operators, redirections, parentheses
}
