package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.internal.nodes.ShellCommand.Mode;
import dev.loopflow.core.internal.nodes.ShellLexer.Use;
import dev.loopflow.core.internal.nodes.ShellWord.Ref;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;

/**
 * The words of one command list of a shell command (the top level, a $( ), a subshell, an array literal) or
 * of one [[ ]], grouped into simple commands, so that each value reference is classified by the command that
 * receives it: the arguments of let and declare -i are arithmetic, the operands of -eq are integers, the
 * arguments of read are variable names, the arguments of eval are code. {@link ShellLexer} feeds the characters;
 * this class decides what the finished words mean.
 *
 * It also notes what makes a command run code that it does not show (an interpreter reading its input, a computed
 * command name or script, eval of computed text, a special variable filled from elsewhere, a program whose
 * arguments are commands): then no value may appear anywhere in the command.
 *
 * <p>This class is the state machine: where a simple command starts and ends, which word is its name (after
 * assignments, reserved words, builtin, command, a case pattern), and so which rules its arguments follow. The
 * rules themselves are in {@link ShellArguments} (the shell's own commands) and {@link ShellProgramArguments}
 * (interpreters and the programs that run commands); the program tables are in ShellPrograms and the variable
 * table in ShellSpecials. A command's name alone decides its {@link Mode}, in one switch here, so the
 * table of which command makes which argument arithmetic, a name, an operand or code reads in one place.
 */
final class ShellWords {
  /** Reserved words after which the next word is still in command position. */
  private static final Set<String> KEEP_COMMAND_POSITION = Set.of("if", "then", "elif", "else", "fi", "do", "done",
      "while", "until", "!", "{", "}", "time");

  /** What classifying words reports back to the reader. */
  interface Reader {
    /** The command evaluates arithmetic or a variable name through something other than a checked value. */
    void evaluatesIndirectly();

    /**
     * The command runs code that is not written in it (read from a variable, a file, a pipe or its input), so a
     * value anywhere in it could become that code; {@code why} says what does it.
     */
    void runsCode(String why);

    void problem(int offset, String message);

    /** The template that gives argument n, as written. */
    String source(int arg);

    void declareAssociative(String name);

    /** The command word "[[" was read: the reader goes on inside the conditional. */
    void openConditional();
  }

  private enum CaseState { SUBJECT, PATTERN, BODY }

  private final Reader reader;
  private final boolean conditional;
  /** The array an array literal assigns, or null. */
  private final String arrayName;
  private final ShellArguments arguments;
  private final ShellProgramArguments programs;
  private ShellCommand cmd = new ShellCommand();
  private final Deque<CaseState> cases = new ArrayDeque<>();

  private ShellWords(Reader reader, boolean conditional, String arrayName) {
    this.reader = reader;
    this.conditional = conditional;
    this.arrayName = arrayName;
    this.arguments = new ShellArguments(reader);
    this.programs = new ShellProgramArguments(reader, arguments);
  }

  static ShellWords commands(Reader reader) {
    return new ShellWords(reader, false, null);
  }

  static ShellWords conditional(Reader reader) {
    return new ShellWords(reader, true, null);
  }

  static ShellWords arrayLiteral(Reader reader, String arrayName) {
    return new ShellWords(reader, false, arrayName);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Fed by the reader

  /** The word being read, started if there is none. */
  ShellWord word() {
    if (cmd.current == null) {
      cmd.current = new ShellWord();
    }
    return cmd.current;
  }

  /** True between words. */
  boolean betweenWords() {
    return cmd.current == null;
  }

  /** The word has quoting or escapes of its own. */
  void quoted() {
    word().plain = false;
  }

  /** The word has an expansion of its own. */
  void expansion() {
    ShellWord w = word();
    w.dynamic = true;
    w.plain = false;
  }

  /** An unquoted '=' in the word: what comes before it may be the name of an assignment. */
  void equalsSign() {
    ShellWord w = word();
    if (w.beforeEquals == null) {
      w.beforeEquals = w.text.toString();
      w.dynamicBeforeEquals = w.dynamic;
    }
  }

  /** A reference directly in this word (possibly inside its quotes); returns its use as far as known now. */
  Use reference(Ref r) {
    ShellWord w = word();
    w.plain = false;
    w.refs.add(r);
    if (w.beforeEquals == null) {
      w.refsBeforeEquals.add(r);
    }
    return cmd.mode == Mode.ARITHMETIC ? Use.INTEGER : Use.TEXT;
  }

  /** A redirection operator: the next word is its target, not an argument. */
  void redirection() {
    ShellWord w = cmd.current;
    if (w != null && w.plain && w.refs.isEmpty() && !w.text.isEmpty() && w.text.chars().allMatch(Character::isDigit)) {
      cmd.current = null; // a file descriptor number (2>...), not an argument
    } else {
      endWord(false);
    }
    cmd.nextRedirectTarget = true;
  }

  /** A heredoc operator: its delimiter is read by the reader and is not an argument. */
  void heredoc() {
    redirection();
    cmd.nextRedirectTarget = false;
  }

  /** A control operator (; & | && || newline) ends the simple command. */
  void endCommand() {
    endWord(false);
    finishCommand();
    cmd = new ShellCommand();
  }

  /** The text of this list is over: its last word and command end. */
  void close() {
    endWord(true);
    finishCommand();
  }

  /** What a complete simple command does with what it did not get in its arguments. */
  private void finishCommand() {
    if (cmd.mode == Mode.INTERPRETER && cmd.interpreter.stdinIsCode() && !cmd.optionGaveCode && cmd.operands == 0) {
      reader.runsCode(cmd.name + " reads its program from its standard input (a heredoc, a here-string, a pipe or "
          + "a redirection)");
    }
    if (cmd.mode == Mode.CODE && cmd.arguments == 0 && !"trap".equals(cmd.name) && !"complete".equals(cmd.name)) {
      reader.runsCode(cmd.name + " without arguments reads code from elsewhere");
    }
  }

  /** && or || inside [[ ]]: operands do not pair across them. */
  void andOr() {
    endWord(false);
    cmd.previous = null;
  }

  boolean inCasePattern() {
    return !cases.isEmpty() && cases.peek() == CaseState.PATTERN;
  }

  /** The ')' that ends a case pattern: the clause's commands follow. */
  void casePatternEnd() {
    endWord(false);
    if (inCasePattern()) {
      cases.pop();
      cases.push(CaseState.BODY);
    }
    // Otherwise the word was esac, which ended the case, and the ')' is a syntax error the shell reports; what
    // follows is still read as a command, the stricter reading.
    finishCommand();
    cmd = new ShellCommand();
  }

  /** ;; ;& ;;& end a case clause: a pattern follows. */
  void caseClauseEnd() {
    endCommand(); // the clause's last command is complete before the next pattern starts
    if (!cases.isEmpty() && cases.peek() == CaseState.BODY) {
      cases.pop();
      cases.push(CaseState.PATTERN);
    }
  }

  boolean hasCommandName() {
    return cmd.name != null;
  }

  /** A compound command such as (( )) stands where the command name would. */
  void compound(String name) {
    if (cmd.name == null) {
      cmd.name = name;
    }
  }

  /** The array of name=( or name+=( when the word so far is exactly that, else null. */
  String arrayAssignment() {
    ShellWord w = cmd.current;
    if (w != null && w.beforeEquals != null && w.text.length() == w.beforeEquals.length() + 1
        && ShellArguments.ASSIGNMENT_TARGET.matcher(w.beforeEquals).matches()) {
      return w.beforeEquals.replaceFirst("\\+$", "").replaceFirst("\\[.*$", "");
    }
    return null;
  }

  /**
   * At '[': the array whose subscript starts here, when the word so far is a variable name in a place that
   * takes one (an assignment, a declare/read/unset argument, a -v operand, an array literal's [i]=), else null.
   */
  String subscriptedArray() {
    ShellWord w = cmd.current;
    if (arrayName != null) {
      return w == null ? arrayName : null;
    }
    boolean takesName = cmd.name == null || cmd.mode == Mode.DECLARE || cmd.mode == Mode.NAMES
        || cmd.mode == Mode.ARITHMETIC || cmd.nextName;
    if (takesName && w != null && w.plain && w.beforeEquals == null
        && ShellArguments.IDENTIFIER.matcher(w.text).matches()) {
      return w.text.toString();
    }
    return null;
  }

  // ---------------------------------------------------------------------------------------------------------
  // What a finished word means

  /** Ends the word being read; {@code closing} when the command text is over (nothing new is opened then). */
  void endWord(boolean closing) {
    ShellWord w = cmd.current;
    if (w == null) {
      return;
    }
    cmd.current = null;
    // Reserved words count only when unquoted; command names, options and operators count after quote removal
    // ('let', \let and "-gt" are what bash runs and compares).
    String reserved = w.plain ? w.text.toString() : null;
    String t = w.dynamic ? null : w.unquoted();
    if (conditional) {
      arguments.testWord(cmd, w, t, true);
      return;
    }
    if (arrayName != null) {
      return;
    }
    if (cmd.nextRedirectTarget) {
      cmd.nextRedirectTarget = false;
      return;
    }
    if (!cases.isEmpty()) {
      CaseState state = cases.peek();
      if (state == CaseState.SUBJECT) {
        if ("in".equals(reserved)) {
          cases.pop();
          cases.push(CaseState.PATTERN);
        }
        return;
      }
      if (state == CaseState.PATTERN || cmd.name == null && "esac".equals(reserved)) {
        if ("esac".equals(reserved)) {
          cases.pop();
          cmd.name = "esac";
        }
        return;
      }
    }
    if (cmd.name == null) {
      commandWord(w, reserved, t, closing);
      return;
    }
    cmd.arguments++;
    if (cmd.arguments == 1 && ("builtin".equals(cmd.name) || "command".equals(cmd.name)) && t != null
        && !t.startsWith("-")) {
      cmd = new ShellCommand(); // the next word is the command that runs
      commandWord(w, reserved, t, closing);
      return;
    }
    if (cmd.arguments == 1 && "function".equals(cmd.name)) { // function NAME { ...; }: the body starts a command
      cmd = new ShellCommand();
      return;
    }
    switch (cmd.mode) {
      case DECLARE -> arguments.declareWord(cmd, w, t);
      case NAMES -> arguments.namesWord(cmd, w, t);
      case TEST -> arguments.testWord(cmd, w, t, false);
      case PRINTF -> arguments.printfWord(cmd, w, t);
      case CODE -> arguments.codeWord(cmd, w, t);
      case ANY_CODE -> arguments.code(w, cmd.name + " runs commands or code given in its arguments or input");
      case FOR -> {
        if (cmd.arguments == 1) {
          arguments.filledVariable(w, t);
        }
      }
      case FIND -> {
        if (t != null && t.matches("-(exec|execdir|ok|okdir)")) {
          cmd = new ShellCommand(); // the words up to ';' or '+' are a command that find runs
        }
      }
      case INTERPRETER -> programs.interpreterWord(cmd, w, t);
      case RUNNER -> {
        if (programs.runnerWord(cmd, w, t)) {
          boolean feeds = ShellPrograms.feedsInput(cmd.name);
          cmd = new ShellCommand(); // the command it runs
          cmd.fedByInput = feeds;
          commandWord(w, reserved, t, closing);
        }
      }
      default -> { }
    }
  }

  private void commandWord(ShellWord w, String reserved, String t, boolean closing) {
    if (reserved != null && KEEP_COMMAND_POSITION.contains(reserved)) {
      return;
    }
    if (w.beforeEquals != null && ShellArguments.ASSIGNMENT_TARGET.matcher(w.beforeEquals).matches()) {
      // an assignment before the command name
      arguments.assignment(w, w.beforeEquals, w.refsBeforeEquals.size());
      return;
    }
    if ("case".equals(reserved)) {
      cases.push(CaseState.SUBJECT);
      cmd.name = reserved;
      return;
    }
    if ("[[".equals(reserved)) {
      cmd.name = reserved;
      if (!closing) {
        reader.openConditional();
      }
      return;
    }
    for (Ref r : w.refs) {
      reader.problem(r.offset, reader.source(r.arg) + " is used as the command name, so the value would choose the "
          + "program that runs; write the program in the command and pass the value as its argument");
    }
    if (w.dynamic) {
      reader.runsCode("its command name is an expansion (such as $x, ${x} or $( )), so what runs is not written "
          + "in the command");
    }
    cmd.name = t == null ? "" : t;
    cmd.mode = switch (cmd.name) {
      case "let" -> {
        reader.evaluatesIndirectly();
        yield Mode.ARITHMETIC;
      }
      case "declare", "typeset", "local", "export", "readonly" -> Mode.DECLARE;
      case "read", "unset", "mapfile", "readarray" -> Mode.NAMES;
      case "test", "[" -> Mode.TEST;
      case "printf" -> Mode.PRINTF;
      case "for", "select" -> Mode.FOR;
      case "find" -> Mode.FIND;
      case "eval", "trap", "source", ".", "compgen", "complete", "bind", "fc", "enable" -> Mode.CODE;
      case "coproc" -> {
        reader.runsCode("coproc runs a command in the background whose input and output other commands write and "
            + "read");
        yield Mode.OTHER;
      }
      default -> {
        if (ShellPrograms.runsAnything(cmd.name)) {
          reader.runsCode(cmd.name + " runs commands or code given in its arguments or input");
          yield Mode.ANY_CODE;
        }
        cmd.interpreter = ShellPrograms.interpreter(cmd.name);
        cmd.runner = ShellPrograms.runner(cmd.name);
        yield cmd.interpreter != null ? Mode.INTERPRETER : cmd.runner != null ? Mode.RUNNER : Mode.OTHER;
      }
    };
    if (cmd.fedByInput && cmd.mode != Mode.OTHER && cmd.mode != Mode.PLAIN) {
      reader.runsCode("xargs adds what it reads to the arguments of " + cmd.name + ", which may run them as code");
    }
  }
}
