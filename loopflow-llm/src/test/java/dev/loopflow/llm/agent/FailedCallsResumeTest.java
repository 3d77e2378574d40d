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
import dev.loopflow.testkit.RecordedRequest;
import dev.loopflow.testkit.Reply;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * What a failed, retried or resumed LLM call leaves behind: a rejected answer is history (a resume asks the model
 * again, never replays it), a stage's output_schema mismatch is retried like any validation failure, and
 * {@code usage.llm_calls} equals the requests the provider received, across resumes and crashes (a call in flight
 * at a crash counts, since its reservation was journaled before it was sent).
 */
class FailedCallsResumeTest {
  private static final String VALID = "{\"inputs\": {}, \"outputs\": {\"n\": 1}, \"evidence\": {}}";

  private static final String ONE_STAGE = """
      defaults: {model: "openai:gpt-4o-mini"}
      workflow_pattern:
        iterative:
          pipeline:
            stages:
              - {agent_id: only, prompt_template: "Answer in JSON"}
          restart_policy: {enabled: true, max_validation_retries: 2}
      """;

  private static AgentRuns runs(RunStore store, FakeOpenAiServer server) {
    return new AgentRuns(store).env("OPENAI_BASE_URL", server.baseUrl()).env("OPENAI_API_KEY", "k");
  }

  private static RunResult resume(AgentRuns runs, Workflow wf, String runId) throws Exception {
    return runs.engine.resume(wf, runId, ResumeInput.none(), runs.opts(Map.of()), false)
        .await(Duration.ofMinutes(2)).orElseThrow();
  }

  private static String lastUserText(RecordedRequest r) {
    var messages = r.json().path("messages");
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i).path("role").asText().equals("user")) {
        return messages.get(i).path("content").asText();
      }
    }
    return "";
  }

  @Test
  void aResumeAfterExhaustedValidationRetriesAsksTheModelAgain_bugItReplayedTheRejectedAnswersAndInflatedUsage()
      throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("nope"), Reply.text("nope"), Reply.text("nope"));
      AgentRuns runs = runs(RunStore.inMemory(), server);
      Workflow wf = runs.parse(ONE_STAGE);
      RunResult failed = runs.engine.run(wf, runs.opts(Map.of()));
      assertThat(failed.error().code()).isEqualTo("validation_retry_exhausted");
      assertThat(failed.usage().llmCalls()).isEqualTo(3).isEqualTo(server.requestCount());

      server.enqueue(Reply.text("still nope"), Reply.text("still nope"), Reply.text("still nope"));
      RunResult again = resume(runs, wf, failed.runId());
      assertThat(again.error().code()).isEqualTo("validation_retry_exhausted");
      assertThat(server.requestCount()).as("the model is asked again").isEqualTo(6);
      assertThat(again.usage().llmCalls()).isEqualTo(6);
      assertThat(lastUserText(server.requests().get(3))).as("a fresh first attempt").isEqualTo("Answer in JSON");

      server.enqueue(Reply.text(VALID));
      RunResult done = resume(runs, wf, failed.runId());
      assertThat(done.status()).as(String.valueOf(done.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(server.requestCount()).isEqualTo(7);
      assertThat(done.usage().llmCalls()).as("every request counted once").isEqualTo(7);
      assertThat(done.output()).isEqualTo(VALID);
    }
  }

  @Test
  void aStageOutputSchemaMismatchIsRetriedWithItsFeedback_bugTheFirstMismatchFailedTheStage() throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      // The stage offers tools, so its answer is first asked for without the schema and, not matching it, once more
      // with it; only a mismatch after that is the stage's to retry with feedback.
      server.enqueue(Reply.text("{\"guess\": 1}"), Reply.text("{\"guess\": 2}"), Reply.text("{\"answer\": 42}"));
      AgentRuns runs = runs(RunStore.inMemory(), server);
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          workflow_pattern:
            iterative:
              pipeline:
                stages:
                  - agent_id: only
                    prompt_template: "Answer in JSON"
                    output_schema: {type: object, required: [answer], properties: {answer: {type: integer}}}
              restart_policy: {enabled: true, max_validation_retries: 1}
          """);

      assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.pipeline()).containsEntry("validation_retries", 1);
      assertThat(lastUserText(server.requests().get(1))).startsWith("Your answer does not match the required "
          + "output schema (");
      assertThat(lastUserText(server.requests().get(2))).startsWith("Answer in JSON\n\nYour previous answer was "
          + "rejected: ").contains("answer");
      assertThat(r.output()).isEqualTo(Map.of("answer", 42));
      assertThat(runs.events.stream().filter(Event.StageValidationRetry.class::isInstance)).hasSize(1);
      assertThat(r.usage().llmCalls()).isEqualTo(3).isEqualTo(server.requestCount());
    }
  }

  @Test
  void aStageOutputSchemaMismatchExhaustsItsRetriesWithTheLastError() throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("{\"guess\": 1}"), Reply.text("not json at all"));
      AgentRuns runs = runs(RunStore.inMemory(), server);
      RunResult r = runs.run("""
          defaults: {model: "openai:gpt-4o-mini"}
          workflow_pattern:
            iterative:
              pipeline:
                stages:
                  - {agent_id: only, prompt_template: "Answer", output_schema: {type: object, required: [answer]}}
              restart_policy: {enabled: true, max_validation_retries: 1}
          """);

      assertThat(r.error().code()).isEqualTo("validation_retry_exhausted");
      assertThat(r.error().message()).startsWith("stage 'only': validation failed after 1 retry: invalid JSON");
    }
  }

  @Test
  void anAgentReplyRejectedByItsOutputSchemaIsAskedAgainOnResume_bugTheResumeReplayedTheRejectedReply()
      throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("{\"guess\": 1}"));
      AgentRuns runs = runs(RunStore.inMemory(), server);
      Workflow wf = runs.parse("""
          nodes:
            - id: a
              type: agent
              model: "openai:gpt-4o-mini"
              prompt: "answer"
              output_schema: {type: object, required: [answer]}
          """);
      RunResult failed = runs.engine.run(wf, runs.opts(Map.of()));
      assertThat(failed.error().code()).isEqualTo("node_failed");

      server.enqueue(Reply.text("{\"answer\": 1}"));
      RunResult done = resume(runs, wf, failed.runId());

      assertThat(done.status()).as(String.valueOf(done.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(server.requestCount()).isEqualTo(2);
      assertThat(done.usage().llmCalls()).isEqualTo(2);
      assertThat(done.output()).isEqualTo(Map.of("answer", 1));
    }
  }

  /**
   * The journal a process killed just before the {@code n}-th event matching {@code at} leaves: the run record as
   * running, the events before it, and the node executions journaled before it (none here: the workflows have
   * one node, whose row is written when it ends).
   */
  private static RunStore crashedBefore(RunStore from, String runId, Predicate<Event> at, int n) {
    RunStore copy = RunStore.inMemory();
    copy.createRun(from.findRun(runId).orElseThrow().toBuilder().status(RunStatus.RUNNING).finishedAt(null)
        .usage(Usage.NONE).output(null).error(null).state(null).nodes(null).build());
    int seen = 0;
    for (Event e : from.events(runId)) {
      if (at.test(e) && ++seen == n) {
        return copy;
      }
      copy.appendEvent(e);
    }
    throw new AssertionError("the run has fewer than " + n + " such events");
  }

  /** The answer to a call arriving: until then the call is in flight. */
  private static boolean callAnswered(Event e) {
    return e instanceof Event.LlmCalled
        || e instanceof Event.NodeStep s && "llm.ended".equals(s.step().get("type"));
  }

  @Test
  void aCallInFlightAtACrashCountsAfterTheResume_bugTheResumedRunSentMoreCallsThanMaxLlmCalls() throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("first"));
      RunStore original = RunStore.inMemory();
      AgentRuns first = runs(original, server);
      Workflow wf = first.parse("""
          budget: {max_llm_calls: 1}
          nodes:
            - {id: a, type: llm, model: "openai:gpt-4o-mini", prompt: "hello"}
          """);
      RunResult done = first.engine.run(wf, first.opts(Map.of()));
      assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);

      // Killed while the provider was answering: the request was sent (the server received it).
      RunStore crashed = crashedBefore(original, done.runId(), FailedCallsResumeTest::callAnswered, 1);
      server.defaultReply(Reply.text("a second call must not be sent"));
      AgentRuns second = runs(crashed, server);
      RunResult resumed = resume(second, wf, done.runId());

      assertThat(server.requestCount()).as("requests the provider received").isEqualTo(1);
      assertThat(resumed.status()).isEqualTo(RunStatus.FAILED);
      assertThat(resumed.error().code()).isEqualTo("budget_exceeded");
      assertThat(resumed.usage().llmCalls()).isEqualTo(1);
    }
  }

  @Test
  void aCallInFlightAtACrashIsCountedOnceHoweverOftenTheRunResumes() throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("first"));
      RunStore original = RunStore.inMemory();
      AgentRuns first = runs(original, server);
      Workflow wf = first.parse("""
          nodes:
            - {id: a, type: llm, model: "openai:gpt-4o-mini", prompt: "hello"}
          """);
      String id = first.engine.run(wf, first.opts(Map.of())).runId();

      RunStore crashed = crashedBefore(original, id, FailedCallsResumeTest::callAnswered, 1);
      server.enqueue(Reply.text("second"));
      RunResult resumed = resume(runs(crashed, server), wf, id);
      assertThat(resumed.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(resumed.usage().llmCalls()).isEqualTo(2).isEqualTo(server.requestCount());

      // Crash the resumed attempt too, with its call in flight, and resume once more.
      RunStore twice = crashedBefore(crashed, id, FailedCallsResumeTest::callAnswered, 1);
      server.enqueue(Reply.text("third"));
      RunResult last = resume(runs(twice, server), wf, id);
      assertThat(last.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(last.output()).isEqualTo("third");
      assertThat(last.usage().llmCalls()).isEqualTo(3).isEqualTo(server.requestCount());
    }
  }

  @Test
  void aStageCrashedDuringARetryContinuesWithoutReplayingTheRejectedAnswerAsARetry() throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.enqueue(Reply.text("nope"), Reply.text(VALID));
      RunStore original = RunStore.inMemory();
      AgentRuns first = runs(original, server);
      Workflow wf = first.parse(ONE_STAGE);
      RunResult done = first.engine.run(wf, first.opts(Map.of()));
      assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);

      // Killed while the retry's request was under way: the first answer (rejected) is journaled. Each answered
      // call has two matching events (its llm.ended step, then llm.called): the third is the retry's first.
      RunStore crashed = crashedBefore(original, done.runId(), FailedCallsResumeTest::callAnswered, 3);
      server.enqueue(Reply.text(VALID));
      RunResult resumed = resume(runs(crashed, server), wf, done.runId());

      assertThat(resumed.status()).as(String.valueOf(resumed.error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(server.requestCount()).as("only the retry is asked again").isEqualTo(3);
      assertThat(lastUserText(server.requests().get(2))).contains("Your previous answer was rejected");
      assertThat(resumed.usage().llmCalls()).isEqualTo(3);
      assertThat(resumed.pipeline()).containsEntry("validation_retries", 1);
    }
  }

  @Test
  void aCallItsNodeTimeoutCutOffCountsInTheRunsUsage_bugTheRunEndedWithoutCountingTheSentRequest()
      throws Exception {
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      // The first call readies the HTTP client, so the timed-out node's request is surely sent within its timeout.
      server.enqueue(Reply.text("warm"), Reply.text("too late").after(Duration.ofSeconds(20)));
      AgentRuns runs = runs(RunStore.inMemory(), server);
      RunResult r = runs.run("""
          nodes:
            - {id: w, type: llm, model: "openai:gpt-4o-mini", prompt: "warm up"}
            - {id: a, type: llm, model: "openai:gpt-4o-mini", prompt: "hello", timeout: 2s, depends_on: [w]}
          """);

      assertThat(r.error().code()).isEqualTo("timeout");
      assertThat(server.requestCount()).isEqualTo(2);
      assertThat(r.usage().llmCalls()).as("the sent request counts").isEqualTo(2);
    }
  }

  @Test
  void aMockScriptedStageResumedAfterExhaustedRetriesTakesTheNextAnswer_bugItWasGivenTheRejectedAnswersAgain()
      throws Exception {
    AgentRuns runs = new AgentRuns().option("llm.mock_script", List.of("nope", "nope", "nope", VALID));
    Workflow wf = runs.parse(ONE_STAGE.replace("openai:gpt-4o-mini", "mock:scripted"));
    RunResult failed = runs.engine.run(wf, runs.opts(Map.of()));
    assertThat(failed.error().code()).isEqualTo("validation_retry_exhausted");

    RunResult done = resume(runs, wf, failed.runId());

    assertThat(done.status()).as(String.valueOf(done.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(done.output()).isEqualTo(VALID);
    assertThat(done.usage().llmCalls()).isEqualTo(4);
  }

  @Test
  void aMockScriptedLlmNodeResumedAfterARejectedReplyTakesTheNextAnswer_bugItWasGivenTheSameReplyAgain()
      throws Exception {
    AgentRuns runs = new AgentRuns().option("llm.mock_script", List.of("not json", "{\"answer\": 1}"));
    Workflow wf = runs.parse("""
        nodes:
          - {id: a, type: llm, model: "mock:scripted", prompt: "hi", output_schema: {type: object, required: [answer]}}
        """);
    RunResult failed = runs.engine.run(wf, runs.opts(Map.of()));
    assertThat(failed.error().code()).isEqualTo("node_failed");

    RunResult done = resume(runs, wf, failed.runId());

    assertThat(done.status()).as(String.valueOf(done.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(done.output()).isEqualTo(Map.of("answer", 1));
    assertThat(done.usage().llmCalls()).isEqualTo(2);
  }

  @Test
  void aMockScriptedStageThatFailedOtherwiseResumesAtTheScriptsNextAnswer_bugItSkippedAnAnswerTwice()
      throws Exception {
    Map<String, Object> toolCall = Map.of("tool_calls", List.of(Map.of("name", "shared_memory_read",
        "arguments", Map.of("namespace", "workflow", "key", "stage-1-output"))));
    AgentRuns runs = new AgentRuns().option("llm.mock_script", List.of(toolCall, VALID, "nope"));
    Workflow wf = runs.parse(ONE_STAGE.replace("openai:gpt-4o-mini", "mock:scripted")
        + "agents: {only: {max_turns: 1}}\n");
    RunResult failed = runs.engine.run(wf, runs.opts(Map.of()));
    assertThat(failed.error().code()).as("the reply still asks for tools in the last turn").isEqualTo("node_failed");

    RunResult done = resume(runs, wf, failed.runId());

    assertThat(done.status()).as(String.valueOf(done.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(done.output()).isEqualTo(VALID);
    assertThat(done.usage().llmCalls()).isEqualTo(2);
  }
}
