package dev.loopflow.core.internal.nodes;

import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Well-known programs that read some of their arguments as code (an interpreter's inline program, a remote
 * command) or run another command given in their arguments (env, sudo, timeout, ...). A value placed in such
 * code would be parsed by the program, whatever quoting the shell gave it, so {@link ShellWords} reports it.
 */
final class ShellPrograms {
  private ShellPrograms() {}

  /**
   * How a program takes code. {@code codeOption}: an option whose next argument is code, or, when
   * {@code optionCodeIsFirstOperand} (a shell's -c), whose first operand is. {@code codeOperands}: which operands
   * are code when no option or file gave the code: 0 none, 1 the first, -1 all (ssh's remote command), counted
   * after {@code operandsBefore} (ssh's host).
   */
  record Interpreter(Pattern codeOption, boolean optionCodeIsFirstOperand, int codeOperands, int operandsBefore,
      Set<String> optionsWithArgument, Set<String> fileOptions) {}

  /** A program that runs a command: options that take an argument, and leading operands before the command. */
  record Runner(Set<String> optionsWithArgument, boolean skipsAssignments, int operandsBefore) {}

  private static final Interpreter SHELL = new Interpreter(Pattern.compile("-[A-Za-z]*c[A-Za-z]*"), true, 0, 0,
      Set.of("-o", "+o", "-O", "+O", "--rcfile", "--init-file"), Set.of());
  private static final Interpreter PYTHON = new Interpreter(Pattern.compile("-[A-Za-z]*c"), false, 0, 0,
      Set.of("-W", "-X", "-m"), Set.of());
  private static final Interpreter NODE = new Interpreter(Pattern.compile("-e|-p|--eval|--print"), false, 0, 0,
      Set.of("-r", "--require", "--import"), Set.of());
  private static final Interpreter PERL_RUBY = new Interpreter(Pattern.compile("-[A-Za-z0-9]*[eE]"), false, 0, 0,
      Set.of("-I", "-M", "-r"), Set.of());
  private static final Interpreter E_OPTION = new Interpreter(Pattern.compile("-e"), false, 0, 0, Set.of(),
      Set.of());
  private static final Interpreter PHP = new Interpreter(Pattern.compile("-r"), false, 0, 0, Set.of("-c", "-d"),
      Set.of());
  private static final Interpreter SU = new Interpreter(Pattern.compile("-c|--command"), false, 0, 0,
      Set.of("-s", "--shell", "-g", "-G"), Set.of());
  private static final Interpreter AWK = new Interpreter(Pattern.compile("-e|--source"), false, 1, 0,
      Set.of("-F", "-v", "--assign", "--field-separator"), Set.of("-f", "--file"));
  private static final Interpreter SED = new Interpreter(Pattern.compile("-e|--expression"), false, 1, 0,
      Set.of("-l", "--line-length"), Set.of("-f", "--file"));
  private static final Interpreter SSH = new Interpreter(Pattern.compile("(?!)"), false, -1, 1,
      Set.of("-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R",
          "-S", "-W", "-w", "-B"), Set.of());

  private static final Map<String, Interpreter> INTERPRETERS = Map.ofEntries(
      Map.entry("sh", SHELL), Map.entry("bash", SHELL), Map.entry("dash", SHELL), Map.entry("zsh", SHELL),
      Map.entry("ksh", SHELL), Map.entry("ash", SHELL), Map.entry("mksh", SHELL), Map.entry("fish", SHELL),
      Map.entry("python", PYTHON), Map.entry("python2", PYTHON), Map.entry("python3", PYTHON),
      Map.entry("pypy", PYTHON), Map.entry("pypy3", PYTHON), Map.entry("node", NODE), Map.entry("nodejs", NODE),
      Map.entry("perl", PERL_RUBY), Map.entry("ruby", PERL_RUBY), Map.entry("php", PHP), Map.entry("lua", E_OPTION),
      Map.entry("luajit", E_OPTION), Map.entry("Rscript", E_OPTION), Map.entry("osascript", E_OPTION),
      Map.entry("su", SU), Map.entry("awk", AWK), Map.entry("gawk", AWK), Map.entry("mawk", AWK),
      Map.entry("nawk", AWK), Map.entry("sed", SED), Map.entry("gsed", SED), Map.entry("ssh", SSH));

  private static final Map<String, Runner> RUNNERS = Map.ofEntries(
      Map.entry("env", new Runner(Set.of("-u", "--unset", "-C", "--chdir"), true, 0)),
      Map.entry("sudo", new Runner(Set.of("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"), true, 0)),
      Map.entry("doas", new Runner(Set.of("-u", "-C"), false, 0)),
      Map.entry("nohup", new Runner(Set.of(), false, 0)),
      Map.entry("exec", new Runner(Set.of("-a"), false, 0)),
      Map.entry("nice", new Runner(Set.of("-n", "--adjustment"), false, 0)),
      Map.entry("ionice", new Runner(Set.of("-c", "-n", "-p"), false, 0)),
      Map.entry("setsid", new Runner(Set.of(), false, 0)),
      Map.entry("stdbuf", new Runner(Set.of("-i", "-o", "-e"), false, 0)),
      Map.entry("timeout", new Runner(Set.of("-s", "--signal", "-k", "--kill-after"), false, 1)),
      Map.entry("xargs", new Runner(Set.of("-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--max-args",
          "--max-procs", "--delimiter", "--arg-file"), false, 0)),
      Map.entry("busybox", new Runner(Set.of(), false, 0)));

  /** The program name without its directory and, for python3.12 and the like, its version. */
  private static String base(String command) {
    String name = command.substring(command.lastIndexOf('/') + 1);
    return name.matches("python[0-9.]+") ? name.replaceFirst("^(python[0-9]?).*$", "$1") : name;
  }

  /** Whether the interpreter is a shell, whose {@code -c} script bash-like shells read as shell code. */
  static boolean isShell(Interpreter p) {
    return p == SHELL;
  }

  static Interpreter interpreter(String command) {
    return INTERPRETERS.get(base(command));
  }

  static Runner runner(String command) {
    return RUNNERS.get(base(command));
  }
}
