package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs a workflow file as a child of a node's run (an agent's {@code workflow} tool) on the engine that runs the
 * parent. The facade owns loading and input checking and hands both in, so the engine never loads files itself.
 */
public final class ChildRunner implements ChildRuns {
  private final Supplier<Engine> engine;
  private final Function<Path, Workflow> loader;
  private final BiFunction<Workflow, Map<String, Object>, Map<String, Object>> resolveInputs;

  /** {@code engine}: read when a child starts, since the facade builds its engine after its services. */
  public ChildRunner(Supplier<Engine> engine, Function<Path, Workflow> loader,
      BiFunction<Workflow, Map<String, Object>, Map<String, Object>> resolveInputs) {
    this.engine = engine;
    this.loader = loader;
    this.resolveInputs = resolveInputs;
  }

  /** The run option that says how deep a child run (a workflow run as a tool) is nested. */
  private static final String CHILD_DEPTH = "loopflow.child_depth";

  @Override
  public Map<String, Object> run(Path file, Map<String, Object> inputs, RunOptions parent, String parentRunId,
      NodePosition caller, ChildLedger ledger) throws InterruptedException {
    int depth = parent.options().get(CHILD_DEPTH) instanceof Number n ? n.intValue() : 0;
    if (depth >= ChildRuns.MAX_DEPTH) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "workflows run as tools nest at most "
          + ChildRuns.MAX_DEPTH + " deep; '" + file.getFileName()
          + "' would be level " + (depth + 1), caller);
    }
    Workflow wf;
    try {
      wf = loader.apply(file);
    } catch (WorkflowInvalidException e) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "workflow '" + file.getFileName() + "' is invalid: "
          + e.getMessage(), caller);
    }
    RunOptions.Builder ob = RunOptions.builder()
        .runId(parentRunId + "." + caller.nodeId() + "." + UUID.randomUUID().toString().substring(0, 8))
        .inputs(inputs).environment(parent.environment()).workingDirectory(parent.workingDirectory());
    parent.options().forEach(ob::option);
    ob.option(CHILD_DEPTH, depth + 1);
    RunHandle h;
    try {
      RunOptions childOptions = ob.build();
      h = engine.get().start(wf, resolveInputs.apply(wf, childOptions.inputs()), childOptions, ledger);
    } catch (LoopflowException e) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "workflow '" + file.getFileName() + "' could not start: "
          + e.getMessage(), caller);
    }
    RunResult r;
    try {
      r = h.await();
    } catch (InterruptedException e) {
      h.cancel("the calling node was cancelled");
      throw e;
    }
    // Its calls were reserved in the caller's budgets as they were made; the caller's execution journals the total,
    // so the parent's usage (and a resume of it) counts what its children spent.
    ledger.spent(r.usage());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("run_id", r.runId());
    out.put("status", r.status().json());
    out.put("output", r.output());
    if (r.error() != null) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("code", r.error().code());
      e.put("message", r.error().message());
      out.put("error", e);
    } else {
      out.put("error", null);
    }
    if (r.usage() != null) {
      Map<String, Object> u = new LinkedHashMap<>();
      u.put("llm_calls", r.usage().llmCalls());
      u.put("input_tokens", r.usage().inputTokens());
      u.put("output_tokens", r.usage().outputTokens());
      if (r.usage().costUsd() != null) {
        u.put("cost_usd", r.usage().costUsd());
      }
      out.put("usage", u);
    }
    return out;
  }
}
