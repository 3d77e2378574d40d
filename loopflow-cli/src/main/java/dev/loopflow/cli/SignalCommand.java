package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RestartResponse;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "signal", mixinStandardHelpOptions = true,
    description = "Sends a restart request to a running (or paused) run, from outside it, and prints the run's "
        + "answer. The run decides it after the node running now completes, under its restart_policy.",
    footer = {"", "Exit status: 0 accepted, 1 rejected (the error code is printed) or no answer within --wait, "
        + "2 usage, unknown run or a run that has ended."})
final class SignalCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "RUN_ID")
  String runId;

  @Parameters(index = "1", paramLabel = "TYPE", description = "What to signal: restart.")
  String type;

  @Option(names = "--target", required = true, paramLabel = "STAGE", description = "The stage (node) to restart.")
  String target;

  @Option(names = "--reason", paramLabel = "TEXT", description = "Why (kept in the run's journal).")
  String reason = "";

  @Option(names = "--requester", paramLabel = "ID", description = "Who asks (default: external).")
  String requester;

  @Option(names = "--param", paramLabel = "KEY=VALUE", description = "A parameter for the restarted stage "
      + "(repeatable).")
  Map<String, String> params = new LinkedHashMap<>();

  @Option(names = "--wait", paramLabel = "SECONDS", description = "How long to wait for the answer (default 60).")
  int waitSeconds = 60;

  @Option(names = "--json", description = "Print the answer as one JSON object.")
  boolean json;

  @Mixin
  StoreOption store;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      if (!"restart".equals(type)) {
        err.println("loopflow: unknown signal '" + type + "'; the only signal is restart");
        return Main.USAGE;
      }
      if (target.isBlank()) {
        err.println("loopflow: --target must name a stage");
        return Main.USAGE;
      }
      Loopflow engine = Loopflow.builder().store(Stores.open(store)).build();
      try (var journal = engine.store()) {
        RestartRequest req = new RestartRequest(requester, target, reason, params, 0, System.currentTimeMillis());
        Optional<RestartResponse> answer = engine.signalRestart(runId, req,
            Duration.ofSeconds(Math.max(0, waitSeconds)));
        if (answer.isEmpty()) {
          err.println("loopflow: run " + runId + " has not answered within " + waitSeconds + " s; the request "
              + "stays queued and is decided when the run next completes a node");
          return Main.FAILED;
        }
        RestartResponse r = answer.get();
        if (json) {
          out.println(Json.compact(r.toMap()));
        } else if (r.success()) {
          out.println(Errors.oneLine("restart of '" + r.targetStageId() + "' accepted: the run is now in iteration "
              + r.iteration()));
        } else {
          // The target and the message name what the requester wrote: one line, no terminal control codes.
          out.println(Errors.oneLine("restart of '" + r.targetStageId() + "' rejected [" + r.errorCode().code()
              + "]: " + r.message()));
        }
        return r.success() ? Main.OK : Main.FAILED;
      }
    } catch (LoopflowException e) {
      if (!Errors.usage(e.code())) {
        throw e;
      }
      err.println("loopflow: " + e.getMessage());
      return Main.USAGE;
    } finally {
      out.flush();
      err.flush();
    }
  }
}
