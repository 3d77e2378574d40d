package dev.loopflow.core.internal.nodes;

import java.util.List;
import java.util.regex.Pattern;

/**
 * What the arguments of the programs in {@link ShellPrograms} mean: for an interpreter (sh -c, python -c, awk,
 * ssh's remote command, ...) which option or operand is its program, and for a runner (env, sudo, timeout, xargs,
 * ...) where the command it runs starts. {@link ShellWords} calls here with each finished argument of such a
 * command; the option and operand positions are kept in the {@link ShellCommand}.
 *
 * <p>What must stay true: a value is never allowed where the program may read an option (a value that starts
 * like one could give it code), and a script given to a shell is read like the command itself, so that what it
 * runs from its arguments or input counts as code the command's values can reach.
 */
final class ShellProgramArguments {
  /** What in a nested shell script may evaluate arithmetic or a variable name (see nestedScript). */
  private static final Pattern NESTED_EVALUATION =
      Pattern.compile("\\[|\\(\\(|\\$\\{!|\\b(let|declare|typeset|local)\\b");

  private final ShellWords.Reader reader;
  private final ShellArguments arguments;

  ShellProgramArguments(ShellWords.Reader reader, ShellArguments arguments) {
    this.reader = reader;
    this.arguments = arguments;
  }

  /** An argument of a program that takes code (sh -c, python -c, awk, ssh's remote command, ...). */
  void interpreterWord(ShellCommand cmd, ShellWord w, String t) {
    ShellPrograms.Interpreter p = cmd.interpreter;
    String why = "the program given to " + cmd.name + " is code, so the value would be parsed as code; pass it "
        + "as data instead (an argument, an environment variable, a file)";
    if (cmd.nextIsCode) {
      cmd.nextIsCode = false;
      arguments.code(w, why);
      nestedScript(cmd, w, p);
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
    if (optionPlace && !w.refs.isEmpty() && ShellArguments.startsLikeOption(w)) {
      arguments.code(w, "a value cannot be an option of " + cmd.name + ", whose options may give it code");
      return;
    }
    if (optionPlace && !w.refs.isEmpty()) {
      // Where an option may stand, a value could be one (python3 "-cCODE", ssh "-oProxyCommand=..."): it is
      // passed only if it cannot be taken for one.
      ShellArguments.operand(w);
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
        arguments.code(w, why);
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
      arguments.code(w, cmd.firstOperandIsCode ? "the script given to " + cmd.name + " -c is parsed as shell code, "
          + "so the value would be too; pass it as an argument instead: " + cmd.name + " -c '... \"$1\" ...' _ VALUE"
          : why);
      nestedScript(cmd, w, p);
    }
  }

  /**
   * A script given to a shell with {@code -c} is not read here, yet it sees the command's values through its
   * arguments and environment ({@code N={{ v }} bash -c 'echo $((N))'}, {@code bash -c '(( $1 > 2 ))' _ {{ v }}}).
   * When it may evaluate arithmetic or a variable name (anything with '[', "((", let, declare, typeset, local or
   * ${!), the command counts as evaluating indirectly, so every value must be free of expandable subscripts.
   */
  private void nestedScript(ShellCommand cmd, ShellWord w, ShellPrograms.Interpreter p) {
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

  /**
   * An argument of a program that runs another command (env, sudo, timeout, xargs, ...). Returns true when the
   * word is the name of the command it runs: the caller starts that command with it.
   */
  boolean runnerWord(ShellCommand cmd, ShellWord w, String t) {
    ShellPrograms.Runner p = cmd.runner;
    String why = cmd.name + " runs this text as a command line, so the value would be parsed as code";
    if (cmd.nextIsCode) {
      cmd.nextIsCode = false;
      arguments.code(w, why);
      if (w.dynamic) {
        reader.runsCode(cmd.name + " is given a computed command line");
      }
      return false;
    }
    if (cmd.nextOptionArgument) {
      cmd.nextOptionArgument = false;
      return false;
    }
    boolean beforeCommand = cmd.operands <= p.operandsBefore();
    if (p.skipsAssignments() && beforeCommand && w.beforeEquals != null
        && ShellArguments.IDENTIFIER.matcher(w.beforeEquals).matches()) {
      arguments.assignment(w, w.beforeEquals, w.refsBeforeEquals.size());
      return false;
    }
    if (beforeCommand && !w.refs.isEmpty() && ShellArguments.startsLikeOption(w)) {
      arguments.code(w, "a value cannot be an option of " + cmd.name + ", which runs a command");
      return false;
    }
    if (beforeCommand && !w.refs.isEmpty()) {
      ShellArguments.operand(w); // timeout VALUE cmd: a duration, unless it is an option
    }
    if (beforeCommand && t != null && t.length() > 1 && t.startsWith("-")) {
      String option = t.contains("=") && t.startsWith("--") ? t.substring(0, t.indexOf('=')) : t;
      if (p.codeOptions().contains(t)) {
        cmd.nextIsCode = true;
      } else if (p.codeOptions().contains(option) || p.codeOptions().stream().anyMatch(
          o -> o.length() == 2 && t.startsWith(o))) {
        arguments.code(w, why); // --split-string=TEXT, -STEXT
        if (w.dynamic) {
          reader.runsCode(cmd.name + " is given a computed command line");
        }
      } else if (p.shellOptions().contains(t)) {
        reader.runsCode(cmd.name + " " + t + " joins its arguments into a shell command line");
      } else {
        cmd.nextOptionArgument = p.optionsWithArgument().contains(t);
      }
      return false;
    }
    return cmd.operands++ >= p.operandsBefore();
  }
}
