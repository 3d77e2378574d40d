package dev.loopflow.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code loopflow} command. */
@Command(name = "loopflow", mixinStandardHelpOptions = true, version = "loopflow 0.1.0",
    description = "Runs AI and automation workflows written in YAML, with loops that always terminate.",
    subcommands = {RunCommand.class, ResumeCommand.class, CancelCommand.class, RunsCommand.class, ShowCommand.class,
        EventsCommand.class, ValidateCommand.class, GraphCommand.class, CommandLine.HelpCommand.class},
    footer = {"", "Examples:", "  loopflow run examples/hello-shell.yaml --input sentence=\"loops that end\"",
        "  loopflow runs --status paused", "  loopflow resume RUN_ID --approve", "  loopflow show RUN_ID",
        "  loopflow validate examples/*.yaml", "  loopflow graph examples/router.yaml --format mermaid"})
public final class Main implements Runnable {
  static final int OK = 0;
  static final int FAILED = 1;
  static final int USAGE = 2;
  static final int PAUSED = 3;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs the command line and returns the exit status (tests call this directly). */
  public static int execute(String... args) {
    CommandLine cl = new CommandLine(new Main());
    cl.setExitCodeExceptionMapper(e -> USAGE);
    cl.setParameterExceptionHandler((ex, a) -> {
      ex.getCommandLine().getErr().println("loopflow: " + ex.getMessage());
      ex.getCommandLine().getErr().println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName()
          + " --help'.");
      return USAGE;
    });
    return cl.execute(args);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
  }
}
