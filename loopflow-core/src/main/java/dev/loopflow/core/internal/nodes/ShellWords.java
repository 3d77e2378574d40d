package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.internal.nodes.ShellLexer.Use;
import dev.loopflow.core.internal.nodes.ShellWord.Ref;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

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
 * <p>It stays one class (about 750 lines): the table of which command makes which argument arithmetic, a name,
 * an operand or code is one rule, and it is safer read in one place than spread over several; the program tables
 * are in ShellPrograms and the variable table in ShellSpecials.
 */
final class ShellWords {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern ASSIGNMENT_TARGET = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\[.*])?\\+?");
  /** What in a nested shell script may evaluate arithmetic or a variable name (see nestedScript). */
  private static final Pattern NESTED_EVALUATION = Pattern.compile("\\[|\\(\\(|\\$\\{!|\\b(let|declare|typeset|local)\\b");
  /** declare/export "name=..." with the name and '=' inside the quotes. */
  private static final Pattern QUOTED_ASSIGNMENT = Pattern.compile("[\"']([A-Za-z_][A-Za-z0-9_]*)\\+?=");
  private static final Set<String> ARITHMETIC_OPERATORS = Set.of("-eq", "-ne", "-lt", "-le", "-gt", "-ge");
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

  private enum Mode { PLAIN, ARITHMETIC, DECLARE, NAMES, TEST, PRINTF, CODE, INTERPRETER, RUNNER, FOR, FIND, ANY_CODE,
    OTHER }

  private enum CaseState { SUBJECT, PATTERN, BODY }

  /** The simple command being read. */
  private static final class Command {
    String name;
    Mode mode = Mode.PLAIN;
    ShellWord current;
    ShellWord previous;
    boolean nextNumeric;
    boolean nextName;
    boolean nextOptionArgument;
    boolean optionArgumentIsName;
    boolean optionArgumentIsCode;
    boolean nextRedirectTarget;
    boolean declaresAssociative;
    ShellPrograms.Interpreter interpreter;
    ShellPrograms.Runner runner;
    boolean nextIsCode;
    boolean optionGaveCode;
    boolean firstOperandIsCode;
    boolean endOfOptions;
    int operands;
    int arguments;
    /** Run by xargs, which adds what it reads to this command's arguments. */
    boolean fedByInput;
  }

  private final Reader reader;
  private final boolean conditional;
  /** The array an array literal assigns, or null. */
  private final String arrayName;
  private Command cmd = new Command();
  private final Deque<CaseState> cases = new ArrayDeque<>();

  private ShellWords(Reader reader, boolean conditional, String arrayName) {
    this.reader = reader;
    this.conditional = conditional;
    this.arrayName = arrayName;
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
    cmd = new Command();
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
    cmd = new Command();
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
        && ASSIGNMENT_TARGET.matcher(w.beforeEquals).matches()) {
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
    if (takesName && w != null && w.plain && w.beforeEquals == null && IDENTIFIER.matcher(w.text).matches()) {
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
      testWord(w, t, true);
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
      cmd = new Command(); // the next word is the command that runs
      commandWord(w, reserved, t, closing);
      return;
    }
    if (cmd.arguments == 1 && "function".equals(cmd.name)) { // function NAME { ...; }: the body starts a command
      cmd = new Command();
      return;
    }
    switch (cmd.mode) {
      case DECLARE -> declareWord(w, t);
      case NAMES -> namesWord(w, t);
      case TEST -> testWord(w, t, false);
      case PRINTF -> {
        if (cmd.nextName) {
          cmd.nextName = false;
          nameWord(w, w.refs, w.dynamic);
          filledVariable(w, t);
        } else if ("-v".equals(t) && w.refs.isEmpty()) {
          cmd.nextName = true;
        } else if (cmd.arguments == 1 && w.text.toString().replaceAll("[\"']", "").startsWith("-v")) {
          nameWord(w, w.refs, w.dynamic); // -vNAME
          filledVariable(w, t == null ? null : t.substring(2));
        }
      }
      case CODE -> {
        code(w, cmd.name + " runs its arguments (or the file they name) as shell code, so the value would be parsed "
            + "as code; set a variable first and refer to it inside the code: v=VALUE; " + cmd.name
            + " '... \"$v\" ...'");
        if (w.dynamic) {
          reader.runsCode(cmd.name + " runs a computed text as code");
        } else if (("source".equals(cmd.name) || ".".equals(cmd.name)) && cmd.arguments == 1 && t != null
            && (t.startsWith("/dev/") || t.startsWith("/proc/") || t.equals("-"))) {
          reader.runsCode(cmd.name + " " + t + " runs what it reads from its input as code");
        }
      }
      case ANY_CODE -> code(w, cmd.name + " runs commands or code given in its arguments or input");
      case FOR -> {
        if (cmd.arguments == 1) {
          filledVariable(w, t);
        }
      }
      case FIND -> {
        if (t != null && t.matches("-(exec|execdir|ok|okdir)")) {
          cmd = new Command(); // the words up to ';' or '+' are a command that find runs
        }
      }
      case INTERPRETER -> interpreterWord(w, t);
      case RUNNER -> runnerWord(w, reserved, t, closing);
      default -> { }
    }
  }

  private void commandWord(ShellWord w, String reserved, String t, boolean closing) {
    if (reserved != null && KEEP_COMMAND_POSITION.contains(reserved)) {
      return;
    }
    if (w.beforeEquals != null && ASSIGNMENT_TARGET.matcher(w.beforeEquals).matches()) {
      assignment(w, w.beforeEquals, w.refsBeforeEquals.size()); // an assignment before the command name
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

  /**
   * An assignment {@code name=value} (before a command, as a command, or given to declare, export, env, ...),
   * whose value starts after the first {@code refsInName} references of the word.
   */
  private void assignment(ShellWord w, String target, int refsInName) {
    String name = target.replaceFirst("\\+$", "").replaceFirst("\\[.*$", "");
    ShellSpecials.Kind kind = ShellSpecials.kind(name);
    if (kind == ShellSpecials.Kind.NONE) {
      return;
    }
    for (Ref r : w.refs.subList(refsInName, w.refs.size())) {
      reader.problem(r.offset, reader.source(r.arg) + " is assigned to " + name + ", and " + ShellSpecials.why(kind)
          + "; give the value a variable of your own (lower case) instead");
    }
    if (w.dynamic && kind == ShellSpecials.Kind.INTEGER) {
      reader.evaluatesIndirectly();
    } else if (w.dynamic && kind == ShellSpecials.Kind.CODE) {
      reader.runsCode("it assigns a computed text to " + name + ", which the shell runs as code");
    }
  }

  /** A variable the shell assigns from its input or a computed text (read, mapfile, printf -v, for). */
  private void filledVariable(ShellWord w, String name) {
    if (w.dynamic) {
      reader.runsCode("it fills a variable whose name is computed, which may be one the shell runs as code");
    } else if (name != null && ShellSpecials.kind(name) != ShellSpecials.Kind.NONE) {
      reader.runsCode("it fills " + name + " from its input or a computed text, and "
          + ShellSpecials.why(ShellSpecials.kind(name)));
    }
  }

  /** An argument of a program that takes code (sh -c, python -c, awk, ssh's remote command, ...). */
  private void interpreterWord(ShellWord w, String t) {
    ShellPrograms.Interpreter p = cmd.interpreter;
    String why = "the program given to " + cmd.name + " is code, so the value would be parsed as code; pass it "
        + "as data instead (an argument, an environment variable, a file)";
    if (cmd.nextIsCode) {
      cmd.nextIsCode = false;
      code(w, why);
      nestedScript(w, p);
      return;
    }
    if (cmd.nextOptionArgument) {
      cmd.nextOptionArgument = false;
      if (ShellPrograms.isShell(p) && w.dynamic) {
        reader.runsCode(cmd.name + " is given a computed option, which may name a file it runs");
      }
      return;
    }
    boolean optionPlace = cmd.operands == 0 && !cmd.endOfOptions && !(cmd.optionGaveCode
        && ShellPrograms.stopsAtCode(p)) || ShellPrograms.readsOptionsAnywhere(p) && !cmd.endOfOptions;
    if (optionPlace && !w.refs.isEmpty() && startsLikeOption(w)) {
      code(w, "a value cannot be an option of " + cmd.name + ", whose options may give it code");
      return;
    }
    if (optionPlace && !w.refs.isEmpty()) {
      // Where an option may stand, a value could be one (python3 "-cCODE", ssh "-oProxyCommand=..."): it is
      // passed only if it cannot be taken for one.
      operand(w);
    }
    if (cmd.operands == 0 && !cmd.endOfOptions && t != null && t.length() > 1
        && (t.startsWith("-") || t.startsWith("+"))) {
      if (ShellPrograms.isShell(p) && (t.matches("[-+][A-Za-z]*[si][A-Za-z]*") || t.startsWith("--rcfile")
          || t.startsWith("--init-file") || t.equals("--login") || t.equals("--interactive"))) {
        reader.runsCode(cmd.name + " " + t + " runs code from its input or a start-up file");
      }
      if (t.equals("--")) {
        cmd.endOfOptions = true;
      } else if (p.codeOption().matcher(t).matches()) {
        cmd.optionGaveCode = true;
        cmd.firstOperandIsCode = p.optionCodeIsFirstOperand();
        cmd.nextIsCode = !p.optionCodeIsFirstOperand();
      } else if (t.contains("=") && p.codeOption().matcher(t.substring(0, t.indexOf('='))).matches()) {
        cmd.optionGaveCode = true; // --expression=CODE
        code(w, why);
      } else if (p.fileOptions().contains(t)) {
        cmd.optionGaveCode = true;
        cmd.nextOptionArgument = true;
      } else if (p.optionsWithArgument().contains(t)) {
        cmd.nextOptionArgument = true;
      }
      return;
    }
    int index = cmd.operands++;
    if (index == 0 && !cmd.optionGaveCode && p.stdinIsCode() && "-".equals(t)) {
      reader.runsCode(cmd.name + " reads its program from its standard input");
    }
    boolean isCode = cmd.firstOperandIsCode ? index == 0
        : !cmd.optionGaveCode && index >= p.operandsBefore()
            && (p.codeOperands() == -1 || p.codeOperands() == 1 && index == p.operandsBefore());
    if (isCode) {
      code(w, cmd.firstOperandIsCode ? "the script given to " + cmd.name + " -c is parsed as shell code, so the "
          + "value would be too; pass it as an argument instead: " + cmd.name + " -c '... \"$1\" ...' _ VALUE" : why);
      nestedScript(w, p);
    }
  }

  /**
   * A script given to a shell with {@code -c} is not read here, yet it sees the command's values through its
   * arguments and environment ({@code N={{ v }} bash -c 'echo $((N))'}, {@code bash -c '(( $1 > 2 ))' _ {{ v }}}).
   * When it may evaluate arithmetic or a variable name (anything with '[', "((", let, declare, typeset, local or
   * ${!), the command counts as evaluating indirectly, so every value must be free of expandable subscripts.
   */
  private void nestedScript(ShellWord w, ShellPrograms.Interpreter p) {
    if (w.dynamic) {
      reader.runsCode("the program given to " + cmd.name + " is computed (such as \"$x\" or $( )), so it is code "
          + "that is not written in the command");
    }
    if (ShellPrograms.isShell(p) && (w.dynamic || NESTED_EVALUATION.matcher(w.text).find())) {
      reader.evaluatesIndirectly();
    }
    String script = w.dynamic ? null : w.unquoted();
    if (ShellPrograms.isShell(p) && script != null) {
      // The script is read like the command itself: what it runs from its arguments or input ($1 as a command,
      // eval "$1", bash <<<"$1") is code that the command's values can reach.
      ShellLexer.Result nested = ShellLexer.read(script, List.of());
      if (nested.runsCode() != null) {
        reader.runsCode("the script given to " + cmd.name + " runs code it does not show (" + nested.runsCode()
            + ")");
      }
      if (nested.evaluatesIndirectly()) {
        reader.evaluatesIndirectly();
      }
    }
  }

  /** An argument of a program that runs another command (env, sudo, timeout, xargs, ...). */
  private void runnerWord(ShellWord w, String reserved, String t, boolean closing) {
    ShellPrograms.Runner p = cmd.runner;
    String why = cmd.name + " runs this text as a command line, so the value would be parsed as code";
    if (cmd.nextIsCode) {
      cmd.nextIsCode = false;
      code(w, why);
      if (w.dynamic) {
        reader.runsCode(cmd.name + " is given a computed command line");
      }
      return;
    }
    if (cmd.nextOptionArgument) {
      cmd.nextOptionArgument = false;
      return;
    }
    boolean beforeCommand = cmd.operands <= p.operandsBefore();
    if (p.skipsAssignments() && beforeCommand && w.beforeEquals != null
        && IDENTIFIER.matcher(w.beforeEquals).matches()) {
      assignment(w, w.beforeEquals, w.refsBeforeEquals.size());
      return;
    }
    if (beforeCommand && !w.refs.isEmpty() && startsLikeOption(w)) {
      code(w, "a value cannot be an option of " + cmd.name + ", which runs a command");
      return;
    }
    if (beforeCommand && !w.refs.isEmpty()) {
      operand(w); // timeout VALUE cmd: a duration, unless it is an option
    }
    if (beforeCommand && t != null && t.length() > 1 && t.startsWith("-")) {
      String option = t.contains("=") && t.startsWith("--") ? t.substring(0, t.indexOf('=')) : t;
      if (p.codeOptions().contains(t)) {
        cmd.nextIsCode = true;
      } else if (p.codeOptions().contains(option) || p.codeOptions().stream().anyMatch(
          o -> o.length() == 2 && t.startsWith(o))) {
        code(w, why); // --split-string=TEXT, -STEXT
        if (w.dynamic) {
          reader.runsCode(cmd.name + " is given a computed command line");
        }
      } else if (p.shellOptions().contains(t)) {
        reader.runsCode(cmd.name + " " + t + " joins its arguments into a shell command line");
      } else {
        cmd.nextOptionArgument = p.optionsWithArgument().contains(t);
      }
      return;
    }
    if (cmd.operands++ < p.operandsBefore()) {
      return;
    }
    boolean feeds = ShellPrograms.feedsInput(cmd.name);
    cmd = new Command(); // the command it runs
    cmd.fedByInput = feeds;
    commandWord(w, reserved, t, closing);
  }

  /** Values in the word are passed where a program reads options: they must not start like one. */
  private static void operand(ShellWord w) {
    for (Ref r : w.refs) {
      if (r.use == Use.TEXT) {
        r.use = Use.OPERAND;
      }
    }
  }

  /** The word starts with '-' or '+' once its quotes are removed, ignoring the values in it. */
  private static boolean startsLikeOption(ShellWord w) {
    String literal = w.text.toString().replaceAll("[\"'\\\\]", "");
    return literal.startsWith("-") || literal.startsWith("+");
  }

  /** A word that a command runs as shell code: a value in it could not stay data. */
  private void code(ShellWord w, String why) {
    for (Ref r : w.refs) {
      String v = reader.source(r.arg);
      reader.problem(r.offset, v + " is used in shell code: " + why.replace("VALUE", v));
    }
  }

  /** A word the shell takes as a variable name: its values must be names, and a computed name is indirect. */
  private void nameWord(ShellWord w, List<Ref> part, boolean dynamic) {
    for (Ref r : part) {
      if (r.use == Use.TEXT) {
        r.use = Use.NAME;
      }
    }
    if (dynamic || w.text.indexOf("[") >= 0) {
      reader.evaluatesIndirectly();
    }
  }

  private void declareWord(ShellWord w, String t) {
    if (w.text.toString().replaceAll("[\"']", "").startsWith("-") && !w.refs.isEmpty()) {
      code(w, "a value cannot be an option of " + cmd.name);
      return;
    }
    if (t != null && t.startsWith("-") && t.length() > 1) {
      if (t.indexOf('i') > 0) {
        cmd.mode = Mode.ARITHMETIC; // every value assigned now is evaluated as arithmetic
        reader.evaluatesIndirectly();
      }
      if (t.indexOf('n') > 0) {
        reader.evaluatesIndirectly(); // a name reference resolves its value as a variable name
      }
      if (t.indexOf('A') > 0) {
        cmd.declaresAssociative = true;
      }
      return;
    }
    if (w.beforeEquals != null) {
      nameWord(w, w.refsBeforeEquals, w.dynamicBeforeEquals);
      if (w.beforeEquals.indexOf('[') >= 0) {
        reader.evaluatesIndirectly();
      }
      if (w.dynamicBeforeEquals) {
        reader.runsCode(cmd.name + " is given a computed variable name, which may be one the shell runs as code");
      } else {
        assignment(w, w.beforeEquals, w.refsBeforeEquals.size());
      }
    } else {
      nameWord(w, w.refs, w.dynamic);
      java.util.regex.Matcher quoted = QUOTED_ASSIGNMENT.matcher(w.text);
      if (quoted.lookingAt()) {
        assignment(w, quoted.group(1), 0); // declare "name=$value": the name is still the literal one
      } else if (w.dynamic) {
        reader.runsCode(cmd.name + " is given a computed variable name, which may be one the shell runs as code");
      }
    }
    if (cmd.declaresAssociative) {
      String name = w.beforeEquals != null ? w.beforeEquals : w.text.toString();
      if (IDENTIFIER.matcher(name).matches()) {
        reader.declareAssociative(name);
      }
    }
  }

  private void namesWord(ShellWord w, String t) {
    if (cmd.nextOptionArgument) {
      cmd.nextOptionArgument = false;
      if (cmd.optionArgumentIsName) {
        nameWord(w, w.refs, w.dynamic);
        if (!"unset".equals(cmd.name)) {
          filledVariable(w, t);
        }
      } else if (cmd.optionArgumentIsCode) {
        code(w, cmd.name + " -C runs its callback as shell code, so the value would be parsed as code");
        if (w.dynamic) {
          reader.runsCode(cmd.name + " -C runs a computed callback");
        }
      }
      return;
    }
    if (w.text.toString().replaceAll("[\"']", "").startsWith("-") && !w.refs.isEmpty()) {
      code(w, "a value cannot be an option of " + cmd.name);
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
    if (!"unset".equals(cmd.name)) {
      filledVariable(w, t);
    }
  }

  private void testWord(ShellWord w, String t, boolean evaluates) {
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
  private void numericOperand(ShellWord w, boolean evaluates) {
    for (Ref r : w.refs) {
      r.use = Use.INTEGER;
    }
    if (evaluates && (w.dynamic || w.text.chars().anyMatch(ch -> Character.isLetter(ch) || ch == '_'))) {
      reader.evaluatesIndirectly();
    }
  }
}
