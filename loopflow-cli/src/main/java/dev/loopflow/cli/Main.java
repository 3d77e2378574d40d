package dev.loopflow.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code loopflow} command. */
@Command(name = "loopflow", mixinStandardHelpOptions = true, version = "loopflow 0.1.0",
    description = "Runs AI and automation workflows written in YAML, with loops that always terminate.",
    subcommands = {RunCommand.class, ResumeCommand.class, CancelCommand.class, SignalCommand.class, RunsCommand.class,
        ShowCommand.class,
        EventsCommand.class, ValidateCommand.class, GraphCommand.class, ServerCommand.class, WorkerCommand.class,
        CommandLine.HelpCommand.class},
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

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs the command line and returns the exit status (tests call this directly). */
  public static int execute(String... args) {
    return commandLine().execute(args);
  }

  /** The command line with its error handling installed; tests set its out and err and call execute. */
  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    Errors.install(cl);
    return cl;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
  }
}
