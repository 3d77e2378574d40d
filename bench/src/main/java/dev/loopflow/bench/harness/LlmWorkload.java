package dev.loopflow.bench.harness;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.store.RunStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * W4: {@code --runs} runs started at once, each a 5-pass coder/reviewer loop whose two nodes call an
 * OpenAI-compatible server ({@code --url}) through loopflow's own {@code llm} node. The YAML variant counts passes
 * with a Lua node, the API variant builds the same workflow with {@code WorkflowBuilder} and counts in Java.
 */
final class LlmWorkload {
  static final String YAML = """
      name: w4-llm
      defaults: {model: "openai:bench"}
      input:
        reviews: {type: integer, default: 0}
      nodes:
        - name: review_loop
          type: while_loop
          max_iterations: 5
          condition: "state.reviews < 5"
          body:
            - name: coder
              prompt: "Write draft {{ state.reviews + 1 }}"
            - name: reviewer
              prompt: "Review: {{ coder.text }}"
            - name: count
              run: return { reviews = state.reviews + 1 }
      edges:
        - {from: __start__, to: review_loop}
        - {from: review_loop, to: __end__}
      """;

  private LlmWorkload() {}

  static void run(Args a, Output out, boolean api) throws Exception {
    if (a.url == null) {
      throw new IllegalArgumentException("W4 needs --url (the fake OpenAI-compatible server)");
    }
    Loopflow.Builder b = Loopflow.builder().store(RunStore.inMemory());
    Workflow wf;
    if (api) {
      Loopflow engine = b.handler(LoopflowRunner.handler("bench.count", ctx -> {
        long reviews = ((Number) ((Map<?, ?>) ctx.scope().get("state")).get("reviews")).longValue();
        return NodeOutcome.of(null).withStatePatch(Map.of("reviews", reviews + 1));
      })).build();
      wf = engine.workflow("w4-llm")
          .set("defaults", Map.of("model", "openai:bench"))
          .set("input", Map.of("reviews", Map.of("type", "integer", "default", 0)))
          .node("review_loop", "while_loop", Map.of("max_iterations", 5, "condition", "state.reviews < 5",
              "body", List.of(
                  Map.of("name", "coder", "type", "llm", "prompt", "Write draft {{ state.reviews + 1 }}"),
                  Map.of("name", "reviewer", "type", "llm", "prompt", "Review: {{ coder.text }}"),
                  Map.of("name", "count", "type", "bench.count"))))
          .edge("__start__", "review_loop")
          .edge("review_loop", "__end__")
          .build();
      measure(a, out, engine, wf);
    } else {
      Loopflow engine = b.build();
      wf = engine.parse(YAML, "w4.yaml");
      measure(a, out, engine, wf);
    }
  }

  private static void measure(Args a, Output out, Loopflow engine, Workflow wf) throws InterruptedException {
    RunOptions options = RunOptions.builder()
        .environment(Map.of("OPENAI_BASE_URL", a.url, "OPENAI_API_KEY", "bench"))
        .build();
    for (int i = 0; i < a.warmup + a.reps; i++) {
      long t0 = System.nanoTime();
      List<RunHandle> handles = new ArrayList<>(a.runs);
      for (int r = 0; r < a.runs; r++) {
        handles.add(engine.start(wf, options));
      }
      List<RunResult> results = new ArrayList<>(a.runs);
      for (RunHandle h : handles) {
        results.add(h.await());
      }
      long t1 = System.nanoTime();
      long calls = 0;
      for (RunResult r : results) {
        if (LoopflowRunner.check(r, "reviews") != 5) {
          throw new IllegalStateException("W4: run " + r.runId() + " ended with state " + r.state());
        }
        calls += r.usage().llmCalls();
      }
      if (calls != 10L * a.runs) {
        throw new IllegalStateException("W4: " + calls + " LLM calls, expected " + 10L * a.runs);
      }
      if (i >= a.warmup) {
        out.rep(i - a.warmup, t1 - t0, calls, Map.of("runs", a.runs));
      }
    }
  }
}
