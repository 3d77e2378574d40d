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
      Set<String> optionsWithArgument, Set<String> fileOptions, boolean stdinIsCode) {
    Interpreter(Pattern codeOption, boolean optionCodeIsFirstOperand, int codeOperands, int operandsBefore,
        Set<String> optionsWithArgument, Set<String> fileOptions) {
      this(codeOption, optionCodeIsFirstOperand, codeOperands, operandsBefore, optionsWithArgument, fileOptions,
          true);
    }
  }

  /**
   * A program that runs a command: options that take an argument, and leading operands before the command.
   * {@code codeOptions}: options whose argument is a command line the program splits or hands to a shell (env -S,
   * flock -c). {@code shellOptions}: options that make the program join its operands into a shell command line
   * (sudo -s).
   */
  record Runner(Set<String> optionsWithArgument, boolean skipsAssignments, int operandsBefore,
      Set<String> codeOptions, Set<String> shellOptions) {
    Runner(Set<String> optionsWithArgument, boolean skipsAssignments, int operandsBefore) {
      this(optionsWithArgument, skipsAssignments, operandsBefore, Set.of(), Set.of());
    }
  }

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

  private static final Interpreter GIT = new Interpreter(Pattern.compile("-c|--config-env"), false, 0, 0,
      Set.of("-C", "--git-dir", "--work-tree", "--namespace", "--exec-path"), Set.of(), false);
  private static final Interpreter GDB = new Interpreter(Pattern.compile("-ex|--eval-command|-iex|--init-eval-command"),
      false, 0, 0, Set.of(), Set.of("-x", "--command", "-ix"), false);

  /**
   * Programs whose arguments or standard input are commands or code in a language that can start processes,
   * with no simple rule for which argument is data: su, runuser, script -c, watch, GNU parallel, the SQL shells
   * (psql's \!, sqlite3's .shell), editors with -c, at, tmux, ... A value may not appear anywhere in a command
   * that uses one of them.
   */
  private static final Set<String> CODE_PROGRAMS = Set.of("su", "runuser", "sg", "script", "watch", "parallel",
      "expect", "tclsh", "wish", "tmux", "screen", "at", "batch", "crontab", "psql", "mysql", "mariadb", "sqlite3",
      "duckdb", "vim", "vi", "nvim", "ex", "emacs", "pwsh", "powershell", "deno", "bun", "julia", "R", "guile",
      "racket", "jshell", "groovy", "scala", "kotlin", "erl", "elixir", "iex", "ghci", "irb", "tcsh", "csh",
      "rc", "es", "xonsh", "nu", "elvish", "ipython", "make", "gmake", "nix-shell", "docker", "podman", "kubectl",
      "systemd-run", "dbus-send", "lldb", "ltrace", "strace", "valgrind");

  private static final Map<String, Interpreter> INTERPRETERS = Map.ofEntries(
      Map.entry("sh", SHELL), Map.entry("bash", SHELL), Map.entry("dash", SHELL), Map.entry("zsh", SHELL),
      Map.entry("ksh", SHELL), Map.entry("ash", SHELL), Map.entry("mksh", SHELL), Map.entry("fish", SHELL),
      Map.entry("python", PYTHON), Map.entry("python2", PYTHON), Map.entry("python3", PYTHON),
      Map.entry("pypy", PYTHON), Map.entry("pypy3", PYTHON), Map.entry("node", NODE), Map.entry("nodejs", NODE),
      Map.entry("perl", PERL_RUBY), Map.entry("ruby", PERL_RUBY), Map.entry("php", PHP), Map.entry("lua", E_OPTION),
      Map.entry("luajit", E_OPTION), Map.entry("Rscript", E_OPTION), Map.entry("osascript", E_OPTION),
      Map.entry("su", SU), Map.entry("awk", AWK), Map.entry("gawk", AWK), Map.entry("mawk", AWK),
      Map.entry("nawk", AWK), Map.entry("sed", SED), Map.entry("gsed", SED), Map.entry("ssh", SSH),
      Map.entry("git", GIT), Map.entry("gdb", GDB));

  private static final Map<String, Runner> RUNNERS = Map.ofEntries(
      Map.entry("env", new Runner(Set.of("-u", "--unset", "-C", "--chdir"), true, 0,
          Set.of("-S", "--split-string"), Set.of())),
      Map.entry("sudo", new Runner(Set.of("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"), true, 0,
          Set.of(), Set.of("-s", "-i", "--shell", "--login"))),
      Map.entry("pkexec", new Runner(Set.of("--user"), false, 0)),
      Map.entry("chroot", new Runner(Set.of("--userspec", "--groups"), false, 1)),
      Map.entry("flock", new Runner(Set.of("-w", "--timeout", "-E", "--conflict-exit-code"), false, 1,
          Set.of("-c", "--command"), Set.of())),
      Map.entry("unshare", new Runner(Set.of("-S", "-G", "--setuid", "--setgid", "-R", "--root", "-w", "--wd"), false,
          0)),
      Map.entry("nsenter", new Runner(Set.of("-t", "--target", "-S", "-G", "--setuid", "--setgid", "-R", "-w"),
          false, 0)),
      Map.entry("setpriv", new Runner(Set.of("--reuid", "--regid", "--groups", "--inh-caps", "--bounding-set"),
          false, 0)),
      Map.entry("chrt", new Runner(Set.of("-T", "-P", "-D"), false, 1)),
      Map.entry("taskset", new Runner(Set.of("-c", "--cpu-list"), false, 1)),
      Map.entry("setarch", new Runner(Set.of(), false, 1)),
      Map.entry("numactl", new Runner(Set.of("-C", "-N", "-m", "-i", "-p"), false, 0)),
      Map.entry("prlimit", new Runner(Set.of("-p", "--pid"), false, 0)),
      Map.entry("cgexec", new Runner(Set.of("-g"), false, 0)),
      Map.entry("time", new Runner(Set.of("-o", "--output", "-f", "--format"), false, 0)),
      Map.entry("fakeroot", new Runner(Set.of("-l", "--lib", "--faked", "-s", "-i"), false, 0)),
      Map.entry("faketime", new Runner(Set.of("-m", "-f"), false, 1)),
      Map.entry("xvfb-run", new Runner(Set.of("-n", "-s", "-f", "-e", "-p", "--server-args"), false, 0)),
      Map.entry("dbus-run-session", new Runner(Set.of("--config-file", "--dbus-daemon"), false, 0)),
      Map.entry("catchsegv", new Runner(Set.of(), false, 0)),
      Map.entry("torsocks", new Runner(Set.of("-u", "-p", "-a", "-P"), false, 0)),
      Map.entry("proxychains", new Runner(Set.of("-f"), false, 0)),
      Map.entry("proxychains4", new Runner(Set.of("-f"), false, 0)),
      Map.entry("firejail", new Runner(Set.of(), false, 0)),
      Map.entry("sshpass", new Runner(Set.of("-p", "-f", "-d", "-P"), false, 0)),
      Map.entry("rlwrap", new Runner(Set.of("-f", "-H", "-l", "-S"), false, 0)),
      Map.entry("ionice", new Runner(Set.of("-c", "-n", "-p", "--class", "--classdata"), false, 0)),
      Map.entry("doas", new Runner(Set.of("-u", "-C"), false, 0)),
      Map.entry("nohup", new Runner(Set.of(), false, 0)),
      Map.entry("exec", new Runner(Set.of("-a"), false, 0)),
      Map.entry("nice", new Runner(Set.of("-n", "--adjustment"), false, 0)),
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

  /**
   * Whether the program reads options anywhere among its arguments (GNU getopt's permutation: sed "s/a/b/" FILE
   * takes a FILE of "--expression=e CMD" as a script; git's subcommands take options such as -O CMD after other
   * arguments), so no value of it may start like an option.
   */
  static boolean readsOptionsAnywhere(Interpreter p) {
    return p == SED || p == GIT;
  }

  /** Whether the interpreter reads no options after its inline program (python -c CODE ARGS...). */
  static boolean stopsAtCode(Interpreter p) {
    return p == PYTHON;
  }

  static Interpreter interpreter(String command) {
    return INTERPRETERS.get(base(command));
  }

  /** Whether the program's arguments or input may be code with no simple rule for which are data. */
  static boolean runsAnything(String command) {
    return CODE_PROGRAMS.contains(base(command));
  }

  /** Whether a runner feeds what it reads on its standard input to the command it runs (xargs). */
  static boolean feedsInput(String command) {
    return base(command).equals("xargs");
  }

  static Runner runner(String command) {
    return RUNNERS.get(base(command));
  }
}
