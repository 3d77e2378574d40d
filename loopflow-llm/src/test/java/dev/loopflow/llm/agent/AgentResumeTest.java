package dev.loopflow.llm.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An agent resumed after a crash in the middle of its loop continues from its journaled steps: it calls the model
 * only for the turns it had not recorded and runs only the tool calls it had not recorded, and ends with the result
 * an uninterrupted run has. A crash is simulated the way it leaves the journal: the run still marked running, its
 * events up to the crash, no row for the node that was running.
 */
class AgentResumeTest {
  @TempDir
  Path dir;

  private static final String WORKFLOW = """
      nodes:
        - id: a
          type: agent
          model: "openai:gpt-4o-mini"
          prompt: "work"
          tools: [{shell: {allow: true}}]
      """;

  /** Turn 1 and 2 each run one shell command that appends a line to {@code log}; turn 3 answers. */
  private static final List<Reply> REPLIES = List.of(
      Reply.toolCalls(Reply.call("shell", "{\"command\":\"echo one >> log\"}")),
      Reply.toolCalls(Reply.call("shell", "{\"command\":\"echo two >> log\"}")),
      Reply.text("done", 40, 2));

  private AgentRuns runs(RunStore store, FakeOpenAiServer server) {
    return new AgentRuns(store).in(dir).env("OPENAI_BASE_URL", server.baseUrl()).env("OPENAI_API_KEY", "k");
  }

  /**
   * The journal a process killed right after the agent recorded its {@code steps}-th step leaves: the run
   * record as running, the events up to that step, no execution rows (the workflow has one node).
   */
  static RunStore crashedAfter(RunStore from, String runId, int steps) {
    RunStore copy = RunStore.inMemory();
    copy.createRun(from.findRun(runId).orElseThrow().toBuilder().status(RunStatus.RUNNING).finishedAt(null)
        .usage(Usage.NONE).output(null).error(null).state(null).nodes(null).build());
    int seen = 0;
    for (Event e : from.events(runId)) {
      if (seen == steps) {
        break;
      }
      copy.appendEvent(e);
      if (e instanceof Event.NodeStep s && agentStep(s)) {
        seen++;
      }
    }
    assertThat(seen).as("the run recorded fewer steps than the crash point").isEqualTo(steps);
    return copy;
  }

  /**
   * A step the agent recorded to resume from (the engine records the LLM calls it accounts as steps of their own, and
   * the request an execution opens with is journaled for readers, not as a point to resume from).
   */
  static boolean agentStep(Event.NodeStep s) {
    Object type = s.step().get("type");
    return !(type instanceof String t && (t.startsWith("llm.") || t.equals("execution.ended") || t.equals("request")));
  }

  private long lines() throws Exception {
    Path log = dir.resolve("log");
    return Files.exists(log) ? Files.readAllLines(log).size() : 0;
  }

  private static long steps(RunStore store, String runId, String type) {
    return store.events(runId).stream().filter(Event.NodeStep.class::isInstance)
        .map(e -> ((Event.NodeStep) e).step()).flatMap(s -> "resumed".equals(s.get("type"))
            ? ((List<?>) s.get("steps")).stream().map(o -> (Map<?, ?>) o) : java.util.stream.Stream.of(s))
        .filter(s -> type.equals(s.get("type"))).count();
  }

  @ParameterizedTest(name = "crash after step {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5})
  void aCrashedAgentResumesWithoutRepeatingRecordedModelCallsOrToolCalls(int crashAfter) throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(REPLIES.toArray(Reply[]::new));
      RunStore original = RunStore.inMemory();
      AgentRuns first = runs(original, server);
      Workflow wf = first.parse(WORKFLOW);
      RunResult uninterrupted = first.engine.run(wf, first.opts(Map.of()));
      assertThat(uninterrupted.status()).as(String.valueOf(uninterrupted.error())).isEqualTo(RunStatus.COMPLETED);

      RunStore crashed = crashedAfter(original, uninterrupted.runId(), crashAfter);
      long modelsRecorded = steps(crashed, uninterrupted.runId(), "model");
      long toolsRecorded = steps(crashed, uninterrupted.runId(), "tool");
      server.reset();
      server.enqueue(REPLIES.subList((int) modelsRecorded, REPLIES.size()).toArray(Reply[]::new));
      long linesBefore = lines();

      AgentRuns second = runs(crashed, server);
      RunResult resumed = second.engine.resume(wf, uninterrupted.runId(), ResumeInput.none(), second.opts(Map.of()),
          false).await();

      assertThat(resumed.status()).as(String.valueOf(resumed.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(server.requestCount()).as("model calls made again").isEqualTo(3 - modelsRecorded);
      assertThat(lines() - linesBefore).as("tool calls run again").isEqualTo(2 - toolsRecorded);
      assertThat(resumed.output()).isEqualTo("done");
      assertThat(AgentRuns.toolCalls(resumed, "a")).isEqualTo(AgentRuns.toolCalls(uninterrupted, "a"));
      assertThat(resumed.usage()).isEqualTo(uninterrupted.usage());
      assertThat(resumed.nodes().get("a").get("usage")).isEqualTo(uninterrupted.nodes().get("a").get("usage"));
      if (server.requestCount() > 0) {
        assertThat(server.requests().get(0).toolResults()).as("the rebuilt conversation").hasSize((int) modelsRecorded);
      }
    }
  }

  @Test
  void aRunThatCrashesAgainWhileResumingLosesNothingRecordedByEitherAttempt() throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(REPLIES.toArray(Reply[]::new));
      RunStore original = RunStore.inMemory();
      AgentRuns first = runs(original, server);
      Workflow wf = first.parse(WORKFLOW);
      RunResult uninterrupted = first.engine.run(wf, first.opts(Map.of()));
      String id = uninterrupted.runId();

      RunStore once = crashedAfter(original, id, 1); // the first turn's model reply only
      server.reset();
      server.enqueue(REPLIES.subList(1, 3).toArray(Reply[]::new));
      AgentRuns second = runs(once, server);
      assertThat(second.engine.resume(wf, id, ResumeInput.none(), second.opts(Map.of()), false).await().status())
          .isEqualTo(RunStatus.COMPLETED);

      // The second attempt recorded the first's steps as one step, then the first tool call: crash after that.
      RunStore twice = crashedAfter(once, id, 3);
      server.reset();
      server.enqueue(REPLIES.subList(1, 3).toArray(Reply[]::new));
      long linesBefore = lines();
      AgentRuns third = runs(twice, server);
      RunResult resumed = third.engine.resume(wf, id, ResumeInput.none(), third.opts(Map.of()), false).await();

      assertThat(resumed.status()).as(String.valueOf(resumed.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(server.requestCount()).isEqualTo(2);
      assertThat(lines() - linesBefore).isEqualTo(1);
      assertThat(AgentRuns.toolCalls(resumed, "a")).isEqualTo(AgentRuns.toolCalls(uninterrupted, "a"));
      assertThat(resumed.usage()).isEqualTo(uninterrupted.usage());
    }
  }

  @Test
  void callsRecordedBeforeACrashCountAgainstTheBudgetOfTheResumedRun() throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(REPLIES.toArray(Reply[]::new));
      String yaml = "budget: {max_llm_calls: 2}\n" + WORKFLOW;
      RunStore original = RunStore.inMemory();
      AgentRuns first = runs(original, server);
      Workflow wf = first.parse(yaml);
      RunResult uninterrupted = first.engine.run(wf, first.opts(Map.of()));
      assertThat(uninterrupted.error().code()).isEqualTo("budget_exceeded");

      RunStore crashed = crashedAfter(original, uninterrupted.runId(), 3); // two model calls and a tool call
      server.reset();
      server.defaultReply(Reply.text("a third call must not happen"));
      AgentRuns second = runs(crashed, server);
      RunResult resumed = second.engine.resume(wf, uninterrupted.runId(), ResumeInput.none(), second.opts(Map.of()),
          false).await();

      assertThat(resumed.status()).isEqualTo(RunStatus.FAILED);
      assertThat(resumed.error().code()).isEqualTo("budget_exceeded");
      assertThat(server.requestCount()).isZero();
      assertThat(resumed.usage().llmCalls()).isEqualTo(2);
    }
  }

  @Test
  void anAgentThatFailedResumesFromItsStepsWithoutCountingItsCallsTwice() throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(REPLIES.get(0), Reply.error(400, "the request was rejected"));
      AgentRuns runs = runs(RunStore.inMemory(), server);
      Workflow wf = runs.parse(WORKFLOW);
      RunResult failed = runs.engine.run(wf, runs.opts(Map.of()));
      assertThat(failed.status()).isEqualTo(RunStatus.FAILED);
      assertThat(failed.usage().llmCalls()).isEqualTo(2);

      server.enqueue(REPLIES.get(1), REPLIES.get(2));
      RunResult resumed = runs.engine.resume(wf, failed.runId(), ResumeInput.none(), runs.opts(Map.of()), false)
          .await();

      assertThat(resumed.status()).as(String.valueOf(resumed.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(server.requestCount()).isEqualTo(4);
      assertThat(lines()).isEqualTo(2);
      assertThat(resumed.usage().llmCalls()).as("every request counted once").isEqualTo(4);
    }
  }

  @Test
  void aMockAgentResumesWhereItsScriptStopped() throws Exception {
    String yaml = """
        nodes:
          - id: a
            type: agent
            model: "mock:m"
            prompt: "work"
            tools: [{shell: {allow: true}}]
            mock:
              - tool_calls: [{name: shell, arguments: {command: "echo one >> log"}}]
              - tool_calls: [{name: shell, arguments: {command: "echo two >> log"}}]
              - "done"
        """;
    RunStore original = RunStore.inMemory();
    AgentRuns first = new AgentRuns(original).in(dir);
    Workflow wf = first.parse(yaml);
    RunResult uninterrupted = first.engine.run(wf, first.opts(Map.of()));

    RunStore crashed = crashedAfter(original, uninterrupted.runId(), 2);
    long linesBefore = lines();
    AgentRuns second = new AgentRuns(crashed).in(dir);
    RunResult resumed = second.engine.resume(wf, uninterrupted.runId(), ResumeInput.none(), second.opts(Map.of()),
        false).await();

    assertThat(resumed.status()).as(String.valueOf(resumed.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(resumed.output()).isEqualTo("done");
    assertThat(AgentRuns.toolCalls(resumed, "a")).isEqualTo(AgentRuns.toolCalls(uninterrupted, "a"));
    assertThat(lines() - linesBefore).isEqualTo(1);
  }
}
