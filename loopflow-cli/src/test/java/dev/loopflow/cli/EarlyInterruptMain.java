package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import java.io.PrintWriter;
import java.util.List;

/**
 * A child process for {@link TerminalBehaviourTest}: drives a run the way {@code loopflow run} does, but sends itself
 * SIGINT while the run is being started and waits for the signal to be handled before the run's handle exists.
 */
public final class EarlyInterruptMain {
  private EarlyInterruptMain() {}

  public static void main(String[] args) throws Exception {
    Loopflow engine = Loopflow.create();
    Workflow wf = engine.parse("""
        nodes:
          - id: slow
            bash: sleep 600
        """, "early.yaml");
    PrintWriter out = new PrintWriter(System.out, true);
    PrintWriter err = new PrintWriter(System.err, true);
    ExecutionOptions execution = new ExecutionOptions();
    execution.quiet = true;
    Driver driver = new Driver(engine, wf, RunOptions.builder(), execution, null, List.of(), out, err);
    int status = driver.drive(options -> {
      try {
        new ProcessBuilder("kill", "-INT", Long.toString(ProcessHandle.current().pid())).start().waitFor();
        Thread.sleep(500);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      return engine.start(wf, options);
    });
    out.flush();
    err.flush();
    System.exit(status);
  }
}
