package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.OutputRejectedException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.spi.SharedMemory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/*
 * Design notes.
 *
 * One pipeline stage around its agent node's program. Validation retry: when the policy asks for it, the stage's
 * output must be JSON satisfying the stage's schema (by default the StageOutput shape: inputs, outputs and evidence
 * objects). An output that does not is retried with a fresh session: every session the agent names gets the
 * suffix -retryN, and the prompt tells the model what was wrong. After the last retry the stage fails with
 * validation_retry_exhausted carrying the last error. A reply the agent itself rejects against the stage's
 * output_schema (OutputRejectedException) is such an output too. The stage's full output is then written to the run's
 * WORKFLOW shared memory as stage-N-output, before the stage completes, so a crash can only repeat the write,
 * never lose it.
 *
 * Resume. A rejected answer is history, never a result: each attempt's durable steps (an agent's model calls) are
 * tagged with the attempt and given back only to the same attempt of an execution continuing an interrupted one
 * (its replayed answers are validated again, the same way). An execution that exhausted its retries records a
 * stage.failed step, and the execution a resume starts then asks the model again from the first attempt. What the
 * rejected calls cost stays counted once: by the failed execution's journal row.
 */
public final class PipelineStage implements NodeProgram {
  /** The default stage output: a JSON object with {@code inputs}, {@code outputs} and {@code evidence} objects. */
  public static final JsonSchemas.Compiled DEFAULT_SCHEMA = JsonSchemas.compile(Map.of(
      "type", "object",
      "required", List.of("inputs", "outputs", "evidence"),
      "properties", Map.of(
          "schema_version", Map.of("type", "string"),
          "inputs", Map.of("type", "object"),
          "outputs", Map.of("type", "object"),
          "evidence", Map.of("type", "object"),
          "reasoning", Map.of("type", "string"),
          "confidence", Map.of("type", "number", "minimum", 0, "maximum", 1))));

  private final NodeProgram inner;
  private final String agentId;
  private final int stageNum;
  private final int maxRetries;
  private final JsonSchemas.Compiled schema;
  private final String promptSource;

  private PipelineStage(NodeProgram inner, String agentId, int stageNum, int maxRetries, JsonSchemas.Compiled schema,
      String promptSource) {
    this.inner = inner;
    this.agentId = agentId;
    this.stageNum = stageNum;
    this.maxRetries = maxRetries;
    this.schema = schema;
    this.promptSource = promptSource;
  }

  public static NodeProgram wrap(NodeProgram inner, String agentId, int stageNum, int maxRetries,
      JsonSchemas.Compiled schema, String promptSource) {
    return new PipelineStage(inner, agentId, stageNum, maxRetries, schema, promptSource);
  }

  @Override
  public boolean storesWholeResult() {
    return inner.storesWholeResult();
  }

  @Override
  public NodeOutcome execute(NodeContext ctx) throws Exception {
    // An earlier execution that failed here had all its answers rejected: they are history, and this execution asks
    // again. Only an execution that was interrupted (no stage.failed step) is continued from its steps.
    boolean askAgain = ctx.steps().replayed().stream().anyMatch(s -> STAGE_FAILED.equals(s.get("type")));
    String lastError = null;
    for (int retry = 0; retry <= maxRetries; retry++) {
      NodeContext c = new AttemptContext(ctx, retry, lastError, askAgain);
      NodeOutcome out = null;
      String error;
      try {
        out = inner.execute(c);
        error = maxRetries == 0 ? null : validate(text(out));
      } catch (OutputRejectedException e) {
        // The agent's own output_schema check: a validation failure like the stage's, retried with what was wrong.
        if (maxRetries == 0) {
          throw e;
        }
        error = e.problem();
      }
      if (error == null) {
        store(ctx, text(out));
        return out.with("validation_retries", retry).with("stage_num", stageNum);
      }
      lastError = error;
      if (retry < maxRetries && ctx instanceof NodeContextImpl impl) {
        int next = retry + 1;
        String err = error;
        String session = ctx.runId() + "-retry" + next;
        impl.publish((seq, at) -> new Event.StageValidationRetry(ctx.runId(), seq, at, ctx.position(), next,
            session, err));
      }
    }
    ctx.steps().record(Map.of("type", STAGE_FAILED));
    throw new LoopflowException(ErrorCode.VALIDATION_RETRY_EXHAUSTED, "stage '" + agentId
        + "': validation failed after " + maxRetries + " retr" + (maxRetries == 1 ? "y" : "ies") + ": "
        + lastError, ctx.position());
  }

  /** The step a stage records when its attempts are exhausted; see {@link #execute}. */
  private static final String STAGE_FAILED = "stage.failed";
  /** Which validation attempt of the stage a step belongs to. */
  private static final String ATTEMPT = "stage_attempt";

  /** The stage's output as text: an agent's reply text, else its output (JSON for structured values). */
  static String text(NodeOutcome out) {
    Object t = out.fields().get("text");
    if (t instanceof String s) {
      return s;
    }
    Object o = out.output();
    return o == null ? "" : o instanceof String s ? s : Json.compact(o);
  }

  private String validate(String text) {
    Object parsed;
    try {
      parsed = Json.parse(stripFence(text));
    } catch (RuntimeException e) {
      return "invalid JSON: " + oneLine(e.getMessage());
    }
    List<String> problems = schema.validate(parsed).stream()
        .map(p -> p.startsWith(": ") ? p.substring(2) : p) // a problem of the whole output has no location
        .toList();
    return problems.isEmpty() ? null : String.join("; ", problems);
  }

  /** Models often wrap JSON in a Markdown code fence; the fence is not part of the output's structure. */
  static String stripFence(String text) {
    String t = text.strip();
    if (t.startsWith("```")) {
      int nl = t.indexOf('\n');
      int end = t.lastIndexOf("```");
      if (nl > 0 && end > nl) {
        return t.substring(nl + 1, end).strip();
      }
    }
    return t;
  }

  private static String oneLine(String s) {
    if (s == null) {
      return "";
    }
    String l = s.strip().lines().findFirst().orElse("");
    return l.length() > 300 ? l.substring(0, 300) + "…" : l;
  }

  /**
   * The full output in shared memory. A model's text may hold an unpaired surrogate, which shared memory refuses
   * (UTF-8 cannot hold it): stored as U+FFFD instead, so such an output does not fail its stage; prompts and the
   * result keep the output as it was.
   */
  private void store(NodeContext ctx, String text) {
    ctx.sharedMemory().put(SharedMemory.Namespace.WORKFLOW, null, PipelineScope.key(stageNum), RunMemory.asText(text), Map.of(
        "type", "stage_output", "agent_id", agentId, "stage_num", Integer.toString(stageNum)));
  }

  /**
   * One validation attempt's view. Its durable steps are its own: it is given back only the steps the same attempt
   * of an interrupted execution recorded (none after a failed one), so a retry never replays an earlier attempt's
   * rejected answer. A retry's sessions are renamed {@code <name>-retryN} and its prompt is told what was wrong.
   */
  private final class AttemptContext extends ForwardingNodeContext {
    private final int retry;
    private final String error;
    private final boolean askAgain;

    AttemptContext(NodeContext delegate, int retry, String error, boolean askAgain) {
      super(delegate);
      this.retry = retry;
      this.error = error;
      this.askAgain = askAgain;
    }

    @Override
    public StepLog steps() {
      StepLog under = delegate.steps();
      return new StepLog() {
        @Override
        public List<Map<String, Object>> replayed() {
          if (askAgain) {
            return List.of();
          }
          List<Map<String, Object>> mine = new ArrayList<>();
          for (Map<String, Object> s : under.replayed()) {
            if (RunLog.EXECUTION_ENDED.equals(s.get("type"))) {
              mine.add(s); // the engine's: the replayed execution's row holds what these steps took
            } else if (s.get(ATTEMPT) instanceof Number n && n.intValue() == retry) {
              Map<String, Object> copy = new LinkedHashMap<>(s);
              copy.remove(ATTEMPT);
              mine.add(copy);
            }
          }
          return mine;
        }

        @Override
        public void record(Map<String, Object> step) {
          Map<String, Object> tagged = new LinkedHashMap<>(step);
          tagged.put(ATTEMPT, retry);
          under.record(tagged);
        }
      };
    }

    @Override
    public Conversation conversation(String name) {
      return retry == 0 ? delegate.conversation(name) : delegate.conversation(name + "-retry" + retry);
    }

    @Override
    public String render(Template template) {
      String s = delegate.render(template);
      if (retry > 0 && promptSource != null && promptSource.equals(template.source())) {
        return s + "\n\nYour previous answer was rejected: " + error + "\nReply with only a JSON object that "
            + "satisfies the required structure.";
      }
      return s;
    }
  }
}
