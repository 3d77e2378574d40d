package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "validate", mixinStandardHelpOptions = true,
    description = "Checks workflow files and prints every problem as file:line:col: path: message. Templates and "
        + "conditions are checked for syntax only: nothing in them is evaluated.",
    footer = {"", "Example:", "  loopflow validate examples/*.yaml", "",
        "Exit status: 0 when every file is valid, 2 otherwise."})
final class ValidateCommand implements Callable<Integer> {
  @Parameters(arity = "1..*", paramLabel = "FILE", description = "Workflow files.")
  List<Path> files;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    Loopflow engine = Loopflow.create();
    boolean ok = true;
    for (Path f : files) {
      if (Support.load(engine, f, spec.commandLine().getErr()) == null) {
        ok = false;
      } else {
        spec.commandLine().getOut().println(f + ": ok");
      }
    }
    spec.commandLine().getErr().flush();
    spec.commandLine().getOut().flush();
    return ok ? Main.OK : Main.USAGE;
  }
}
