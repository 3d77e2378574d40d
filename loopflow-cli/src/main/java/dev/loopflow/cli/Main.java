package dev.loopflow.cli;

import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** Entry point of the {@code loopflow} command. */
@Command(name = "loopflow", mixinStandardHelpOptions = true, versionProvider = Version.class,
    description = "Runs AI and automation workflows written in YAML, with loops that always terminate.",
    footer = {"", "Examples:", "  loopflow run examples/hello-shell.yaml --input sentence=\"loops that end\"",
        "  loopflow runs --status paused", "  loopflow resume RUN_ID --approve", "  loopflow show RUN_ID",
        "  loopflow validate examples/*.yaml", "  loopflow graph examples/router.yaml --format mermaid",
        "  loopflow server --port 0"})
public final class Main implements Runnable {
  static final int OK = 0;
  static final int FAILED = 1;
  static final int USAGE = 2;
  static final int PAUSED = 3;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @CommandLine.Option(names = "--debug", scope = CommandLine.ScopeType.INHERIT,
      description = "On an error, also print the Java stack trace.")
  boolean debug;

  /**
   * The subcommands, in the order {@code --help} lists them. picocli builds a command's model by reflection over its
   * options, mixins and annotations, which for all of them took about a tenth of a short command's start-up; so
   * they are added here rather than in the annotation, and a command line made for one of them gets only that one
   * (see {@link #commandLine(String...)}).
   */
  static final List<Class<?>> COMMANDS = List.of(RunCommand.class, ResumeCommand.class, ForkCommand.class, DiffCommand.class, CancelCommand.class,
      SignalCommand.class, RunsCommand.class, ShowCommand.class, DeleteCommand.class, EventsCommand.class, ValidateCommand.class,
      GraphCommand.class, ServerCommand.class, WorkerCommand.class, CommandLine.HelpCommand.class);

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs the command line and returns the exit status (tests call this directly). */
  public static int execute(String... args) {
    return commandLine(args).execute(args);
  }

  /**
   * The command line for {@code args} with its error handling installed; tests set its out and err and call
   * execute with the same arguments. When the arguments name a subcommand (after any {@code --debug}), only that
   * subcommand's model is built: parsing, help, errors and execution of that command only ever look at it and at
   * the top-level command. Everything else (no command, {@code --help}, {@code --version}, {@code help}, an unknown
   * or misspelled command that gets suggestions, an argument file) gets every subcommand.
   */
  static CommandLine commandLine(String... args) {
    Class<?> only = invoked(args);
    CommandLine cl = new CommandLine(new Main());
    for (Class<?> command : COMMANDS) {
      if (only == null || command == only) {
        cl.addSubcommand(command);
      }
    }
    Errors.install(cl);
    return cl;
  }

  /** The subcommand {@code args} invoke when that can be told without parsing them, else null (build all). */
  static Class<?> invoked(String... args) {
    for (String a : args) {
      if (a.equals("--debug")) {
        continue;
      }
      for (Class<?> command : COMMANDS) {
        if (command != CommandLine.HelpCommand.class && a.equals(command.getAnnotation(Command.class).name())) {
          return command;
        }
      }
      return null;
    }
    return null;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
  }
}
