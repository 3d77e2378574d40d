package dev.loopflow.core.spi;

import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.model.NodePosition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What a running node may see and do; deliberately narrow (it cannot reach the scheduler). */
public interface NodeContext {
  String runId();

  NodePosition position();

  /** The read-only template scope: {@code input}, {@code state}, {@code loop}, and every node's latest result. */
  Map<String, Object> scope();

  String render(Template template);

  Object evaluate(Template template);

  boolean test(Condition condition);

  /** The workflow's declared defaults ({@code defaults:}). */
  Map<String, Object> defaults();

  /** A raw top-level block of the workflow (e.g. {@code mock}), as plain data; null when absent. */
  Object workflowBlock(String name);

  /** A run option set by the caller (CLI flags, Java API), e.g. {@code llm.mock_script}. */
  Optional<Object> option(String name);

  /** Environment variables the node may use (the process environment unless overridden for the run). */
  Map<String, String> environment();

  Path workingDirectory();

  /** Time left before the run's deadline, or null when there is none. */
  Duration remaining();

  /** Throws {@link dev.loopflow.core.LoopflowException} with code {@code cancelled} when the run is cancelled. */
  void checkCancelled();

  /** Budget checks and usage accounting for LLM calls. */
  LlmAccounting llm();

  /** A named conversation that lives as long as the run (SPEC §4 {@code session}). */
  Conversation conversation(String name);

  /** A service registered with the engine (e.g. the LLM router's chooser), if any. */
  <T> Optional<T> service(Class<T> type);

  /** Budget enforcement and usage recording; the engine turns each record into an event and run totals. */
  interface LlmAccounting {
    /** Throws {@code budget_exceeded} when another call would exceed the run's budget. */
    void beforeCall(String provider, String model);

    void afterCall(LlmCall call);
  }

  /** One finished LLM call, as the engine journals it. */
  record LlmCall(String provider, String model, long inputTokens, long outputTokens, Double costUsd, boolean mock,
      int attempts, long durationMillis) {}

  /** A thread-safe growing list of chat turns. */
  interface Conversation {
    List<Turn> turns();

    void append(Turn turn);

    record Turn(String role, String content) {}
  }
}
