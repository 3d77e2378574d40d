package dev.loopflow.core.restart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RestartResponse;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunCommand;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Restart requests an attacker may write, from every source (a stage's structured output, the node context as the
 * request_restart tool uses it, the Java API from outside the run): each is refused with the documented code or
 * bounded, every request gets a response, and the run ends as documented.
 */
class RestartRequestHostileTest {
  private final RunStore store = RunStore.inMemory();
  private final List<Event> events = Collections.synchronizedList(new ArrayList<>());
  private HostileAgent agent;
  private Loopflow lf;

  /** a -> b -> c; c asks. */
  private static final String ABC = """
      workflow_pattern:
        iterative:
          pipeline:
            stages:
              - {agent_id: a, prompt_template: "a {{ loop.restart.reason }}"}
              - {agent_id: b, prompt_template: "b"}
              - {agent_id: c, prompt_template: "c"}
          max_iterations: 3
          restart_policy: {enabled: true, max_validation_retries: 0}
      """;

  private RunResult run(String yaml, Map<String, HostileAgent.Reply> replies) {
    return run(yaml, replies, store);
  }

  private RunResult run(String yaml, Map<String, HostileAgent.Reply> replies, RunStore on) {
    agent = new HostileAgent(replies);
    lf = Loopflow.builder().discover(false).handler(agent).store(on).build();
    Workflow wf = lf.parse(yaml, "restart.yaml");
    return lf.run(wf, RunOptions.builder().listener(events::add).build());
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> requests(RunResult r) {
    return (List<Map<String, Object>>) r.pipeline().get("restart_requests");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> errorOf(Map<String, Object> request) {
    return (Map<String, Object>) request.get("error");
  }

  /** Every command on the run's bus was answered. */
  private void everyRequestAnswered(RunResult r) {
    List<RunCommand> commands = store.commands(r.runId());
    assertThat(commands).allSatisfy(c -> assertThat(c.response()).as("response to " + c.seq()).isNotNull());
  }

  enum Source {
    STRUCTURED_OUTPUT, NODE_CONTEXT, JAVA_API
  }

  /** c asks for a restart of {@code target} through {@code source} in iteration 1, then answers plainly. */
  private HostileAgent.Reply asking(Source source, String requester, String target, String reason,
      Map<String, String> parameters) {
    return c -> {
      if (c.n() > 0) {
        return "done";
      }
      switch (source) {
        case STRUCTURED_OUTPUT -> {
          Map<String, Object> restart = new LinkedHashMap<>();
          restart.put("target_stage_id", target);
          restart.put("reason", reason);
          restart.put("parameters", parameters);
          return Json.compact(Map.of("restart", restart));
        }
        case NODE_CONTEXT -> c.ctx().requestRestart(target, reason, parameters);
        case JAVA_API -> lf.requestRestart(c.ctx().runId(), new RestartRequest(requester, target, reason, parameters,
            0, 0));
        default -> throw new IllegalStateException();
      }
      return "asked";
    };
  }

  static Stream<String> hostileTargets() {
    return Stream.of(
        "", " ", "\t", "\n", "a ", " a", "A", "a\u0000", "\u0000", "a\n", "a\r\nb",
        "\u001b[31ma\u001b[0m", "\u009b31ma", "../a", "a/../a", "/a", "./a", "*", "%", "_", "a%", ".*",
        "\u0430", // Cyrillic a
        "\uff41", // fullwidth a
        "a\u200b", "\u202ea", "a\u0301", "\ud800", "a\udc00",
        "restart", "restart[1].a", "restart[1]", "a~restart", "b~restart", "external", "null", "undefined",
        "{{ a }}", "$LOOP_PREV.a", "stage-1-output", "1", "x".repeat(10_000), "a".repeat(257));
  }

  static Stream<Arguments> targetsBySource() {
    return hostileTargets().flatMap(t -> Stream.of(Source.values()).map(s -> Arguments.of(s, t)));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("targetsBySource")
  void aHostileTargetIsRefusedAsNotFoundAndAnswered(Source source, String target) {
    RunResult r = run(ABC, Map.of("c", asking(source, null, target, "why", Map.of())));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.calls("a")).isEqualTo(1);
    String shown = new RestartRequest(null, target, "", Map.of(), 0, 0).targetStageId();
    assertThat(requests(r)).singleElement().satisfies(q -> {
      assertThat(q).containsEntry("success", false).containsEntry("target_stage_id", shown);
      assertThat(errorOf(q)).containsEntry("code", "restart_validation_failed")
          .containsEntry("message", "restart validation failed: target stage not found: '" + shown + "'");
    });
    assertThat(shown.length()).isLessThanOrEqualTo(RestartRequest.MAX_ID_CHARS);
    everyRequestAnswered(r);
    assertThat(events).extracting(Event::type).contains("restart.requested", "restart.rejected")
        .doesNotContain("restart.accepted");
  }

  static Stream<String> hostileRequesters() {
    return Stream.of("", " ", "\n", "C", "c ", " c", "c\u0000", "\u0441", "c\u200b", "\u001b[1mc", "../c", "b",
        "restart", "x".repeat(10_000));
  }

  @ParameterizedTest(name = "[{index}]")
  @MethodSource("hostileRequesters")
  void aHostileRequesterFromOutsideIsNotAuthorizedByRestartTriggers(String requester) {
    String yaml = ABC.replace("max_iterations: 3", "max_iterations: 3\n    restart_triggers: [c]");
    RunResult r = run(yaml, Map.of("c", asking(Source.JAVA_API, requester, "a", "why", Map.of())));

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.calls("a")).isEqualTo(1);
    String shown = new RestartRequest(requester, "a", "", Map.of(), 0, 0).requesterStageId();
    assertThat(requests(r)).singleElement().satisfies(q -> {
      assertThat(q).containsEntry("requester_stage_id", shown);
      assertThat(errorOf(q)).containsEntry("code", "requester_not_authorized");
    });
    assertThat(shown).isEqualTo(requester.isBlank() ? "external" : shown);
    everyRequestAnswered(r);
  }

  // -------------------------------------------------------------------------------------------------------------
  // The restart field of a structured output

  /** A stage output, the number of requests it makes, and the target/accepted outcome (null: refused). */
  static Stream<Arguments> restartFields() {
    String many = IntStream.range(0, 10_000).mapToObj(i -> "\"p" + i + "\": \"v\"")
        .reduce((x, y) -> x + ", " + y).orElseThrow();
    return Stream.of(
        // not a request: no restart field object at the top level
        Arguments.of("{\"restart\": \"a\"}", 0, null),
        Arguments.of("{\"restart\": [\"a\"]}", 0, null),
        Arguments.of("{\"restart\": null}", 0, null),
        Arguments.of("{\"restart\": true}", 0, null),
        Arguments.of("{\"restart\": 1}", 0, null),
        Arguments.of("{\"outputs\": {\"restart\": {\"target_stage_id\": \"a\"}}}", 0, null),
        Arguments.of("[{\"restart\": {\"target_stage_id\": \"a\"}}]", 0, null),
        Arguments.of("{\"restart\": {\"target_stage_id\": \"a\"}", 0, null), // not JSON
        Arguments.of("{\"x\": " + "[".repeat(100_000) + "]".repeat(100_000) + ", \"restart\": {\"target_stage_id\": "
            + "\"a\"}}", 0, null), // nested too deep to parse
        Arguments.of("{\"restart\": {\"target_stage_id\": \"a\"}} trailing", 0, null),
        // requests that fail a check
        Arguments.of("{\"restart\": {}}", 1, null),
        Arguments.of("{\"restart\": {\"target_stage_id\": null}}", 1, null),
        Arguments.of("{\"restart\": {\"target_stage_id\": 1}}", 1, null),
        Arguments.of("{\"restart\": {\"target_stage_id\": [\"a\"]}}", 1, null),
        Arguments.of("{\"restart\": {\"target_stage_id\": {\"id\": \"a\"}}}", 1, null),
        Arguments.of("{\"restart\": {\"target_stage_id\": \"c\"}}", 1, null),
        Arguments.of("{\"restart\": {\"target_stage_id\": \"\\u0000a\"}}", 1, null),
        // requests that pass, with hostile extras bounded
        Arguments.of("{\"restart\": {\"target_stage_id\": \"a\", \"reason\": {\"x\": [1, null]}}}", 1, "a"),
        Arguments.of("{\"restart\": {\"target_stage_id\": \"a\", \"reason\": 42, \"parameters\": \"p\"}}", 1, "a"),
        Arguments.of("{\"restart\": {\"target_stage_id\": \"a\", \"parameters\": [1, 2]}}", 1, "a"),
        Arguments.of("{\"restart\": {\"target_stage_id\": \"a\", \"parameters\": {\"n\": {\"deep\": [1, {\"x\": null}]},"
            + " \"z\": null, \"b\": true}}}", 1, "a"),
        Arguments.of("{\"restart\": {\"target_stage_id\": \"a\", \"parameters\": {" + many + "}}}", 1, "a"),
        Arguments.of("{\"restart\": {\"target_stage_id\": \"a\", \"extra\": \"{{ x }}\", \"requester_stage_id\": "
            + "\"b\"}}", 1, "a"),
        Arguments.of("```json\n{\"restart\": {\"target_stage_id\": \"a\"}}\n```", 1, "a"),
        Arguments.of("  \n{\"restart\": {\"target_stage_id\": \"a\"}}  ", 1, "a"));
  }

  @ParameterizedTest(name = "[{index}] {1} {2}")
  @MethodSource("restartFields")
  void aHostileRestartFieldIsIgnoredRefusedOrBounded(String output, int requests, String accepted) {
    RunResult r = run(ABC, Map.of("c", c -> c.n() == 0 ? output : "done"));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(requests(r)).hasSize(requests);
    everyRequestAnswered(r);
    if (requests == 1) {
      Map<String, Object> q = requests(r).get(0);
      assertThat(q).containsEntry("requester_stage_id", "c").containsEntry("success", accepted != null);
      assertThat(agent.calls("a")).isEqualTo(accepted != null ? 2 : 1);
      assertThat((String) q.get("reason")).doesNotContain("=").hasSizeLessThanOrEqualTo(
          RestartRequest.MAX_TEXT_CHARS);
    }
    List<RunCommand> commands = store.commands(r.runId());
    assertThat(commands).allSatisfy(c -> assertThat(((Map<?, ?>) c.payload().get("parameters")).size())
        .isLessThanOrEqualTo(RestartRequest.MAX_PARAMETERS));
  }

  @Test
  void aStructuredRestartInACodeFenceIsARequest_bugFencedRequestWasIgnored() {
    RunResult r = run(ABC, Map.of("c", c -> c.n() == 0
        ? "```json\n{\"restart\": {\"target_stage_id\": \"a\", \"reason\": \"fenced\"}}\n```" : "done"));
    assertThat(requests(r)).singleElement().satisfies(q -> assertThat(q).containsEntry("success", true)
        .containsEntry("reason", "fenced"));
    assertThat(agent.calls("a")).isEqualTo(2);
  }

  @Test
  void aStructuredRestartFollowedByMoreTextIsNotARequest_bugTrailingTextWasIgnored() {
    RunResult r = run(ABC, Map.of("c", c -> c.n() == 0
        ? "{\"restart\": {\"target_stage_id\": \"a\"}} but on second thought, do not restart" : "done"));
    assertThat(requests(r)).isEmpty();
    assertThat(agent.calls("a")).isEqualTo(1);
  }

  @Test
  void aCutNeverSplitsACharacter_bugCutLeftHalfASurrogatePair() {
    String emoji = "\uD83D\uDE00";
    // Pairs start at even indices, so each limit falls just after the first half of one.
    RestartRequest r = new RestartRequest(emoji.repeat(300), emoji.repeat(300), emoji.repeat(3000),
        Map.of("k", emoji.repeat(1000)), 0, 0);
    for (String s : List.of(r.requesterStageId(), r.targetStageId(), r.reason(), r.parameters().get("k"))) {
      assertThat(s).endsWith("…");
      assertThat(s.chars().filter(ch -> Character.isSurrogate((char) ch)).count() % 2).as(s).isZero();
      assertThat(Character.isHighSurrogate(s.charAt(s.length() - 2))).isFalse();
    }
  }

  @Test
  void aNonTextReasonIsKeptAsItsJson_bugReasonWasAJavaMapString() {
    RunResult r = run(ABC, Map.of("c", c -> c.n() == 0
        ? "{\"restart\": {\"target_stage_id\": \"a\", \"reason\": {\"missing\": [\"checkout\"]}}}" : "done"));
    assertThat(requests(r)).singleElement().satisfies(q ->
        assertThat(q).containsEntry("reason", "{\"missing\":[\"checkout\"]}"));
    assertThat(agent.promptsOf("a").get(1)).isEqualTo("a {\"missing\":[\"checkout\"]}");
  }

  static Stream<Arguments> oversizedRequests() {
    // Every parameter at its character limit in characters that take the most bytes: 3 as UTF-8, 6 as a JSON escape.
    Map<String, String> cjk = new LinkedHashMap<>();
    Map<String, String> controls = new LinkedHashMap<>();
    for (int i = 0; i < 40; i++) {
      cjk.put("\u4e00".repeat(RestartRequest.MAX_ID_CHARS - 3) + i, "\u4e00".repeat(RestartRequest.MAX_VALUE_CHARS));
      controls.put("\u0001".repeat(RestartRequest.MAX_ID_CHARS - 3) + i, "\u0001".repeat(RestartRequest.MAX_VALUE_CHARS));
    }
    return Stream.of(Source.values()).flatMap(s -> Stream.of(Arguments.of(s, cjk, "\u4e00"), Arguments.of(s,
        controls, "\u0001")));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("oversizedRequests")
  void aRequestAtEveryLimitFitsTheCommandBus_bugStructuredRestartFailedTheRunInternally(Source source,
      Map<String, String> parameters, String ch) {
    String reason = ch.repeat(RestartRequest.MAX_TEXT_CHARS + 10);
    String requester = ch.repeat(RestartRequest.MAX_ID_CHARS + 10);
    RunResult r = run(ABC, Map.of("c", asking(source, requester, "a", reason, parameters)));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(requests(r)).singleElement().satisfies(q -> assertThat(q).containsEntry("success", true));
    assertThat(agent.calls("a")).isEqualTo(2);
    RunCommand c = store.commands(r.runId()).get(0);
    assertThat(((Map<?, ?>) c.payload().get("parameters"))).isNotEmpty();
    assertThat(Json.compact(c.payload()).getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
        .isLessThan(64 * 1024);
    everyRequestAnswered(r);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Floods

  @ParameterizedTest(name = "{0}")
  @MethodSource("floodSources")
  void aThousandRequestsInOneStageAreEachAnsweredAndOnlyOneIsAccepted(Source source) {
    RunResult r = run(ABC, Map.of("c", c -> {
      if (c.n() == 0) {
        for (int i = 0; i < 1000; i++) {
          if (source == Source.NODE_CONTEXT) {
            c.ctx().requestRestart("a", "flood " + i, Map.of("i", Integer.toString(i)));
          } else {
            lf.requestRestart(c.ctx().runId(), new RestartRequest(null, "a", "flood " + i, Map.of(), 0, 0));
          }
        }
      }
      return "done";
    }));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.calls("a")).isEqualTo(2);
    assertThat(agent.calls("c")).isEqualTo(2);
    assertThat(requests(r)).hasSize(1000);
    assertThat(requests(r)).filteredOn(q -> Boolean.TRUE.equals(q.get("success"))).singleElement()
        .satisfies(q -> assertThat(q).containsEntry("reason", "flood 0"));
    // the others wait for the next decision point, after a in the new iteration, where a cannot restart itself
    assertThat(requests(r).subList(1, 1000)).allSatisfy(q -> assertThat(errorOf(q)).containsEntry("code",
        "restart_validation_failed"));
    assertThat(r.pipeline()).containsEntry("iterations_executed", 2);
    everyRequestAnswered(r);
  }

  static Stream<Source> floodSources() {
    return Stream.of(Source.NODE_CONTEXT, Source.JAVA_API);
  }

  @Test
  void aRequestInEveryIterationEndsTheRunAtTheBoundWithMaxIterationsExceeded() {
    RunResult r = run(ABC.replace("max_iterations: 3", "max_iterations: 100"), Map.of("c", c -> {
      c.ctx().requestRestart("a", "again", Map.of());
      return "done";
    }));
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("max_iterations_exceeded");
    assertThat(agent.calls("a")).isEqualTo(100);
    assertThat(r.pipeline()).containsEntry("iterations_executed", 100);
    assertThat(requests(r)).hasSize(100);
    everyRequestAnswered(r);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Nested nodes, the reserved id

  private static final String NESTED = """
      name: nested
      restart_policy: {enabled: true, max_iterations: 3}
      nodes:
        - {id: first, type: agent, prompt: "first"}
        - {id: inner, type: agent, prompt: "inner"}
        - {id: check, type: agent, prompt: "check"}
        - {id: last, type: agent, prompt: "last"}
      edges:
        - {from: first, to: inner}
        - {from: inner, to: check}
        - {from: check, to: inner, type: loop, maxIterations: 2, when: "true", on_exhausted: continue}
        - {from: check, to: last}
      """;

  @Test
  void aNodeInsideALoopIsNotATarget() {
    RunResult r = run(NESTED, Map.of("last", c -> {
      if (c.n() == 0) {
        c.ctx().requestRestart("inner", "", Map.of());
        c.ctx().requestRestart("check", "", Map.of());
      }
      return "done";
    }));
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(requests(r)).hasSize(2).allSatisfy(q -> assertThat(errorOf(q)).containsEntry("code",
        "restart_validation_failed"));
    assertThat(agent.calls("first")).isEqualTo(1);
    everyRequestAnswered(r);
  }

  @Test
  void aNodeInsideALoopEdgeMayRestartATopLevelNodeAfterItsLoopCompletes_bugTheRequestWasNeverDecided() {
    RunResult r = run(NESTED, Map.of("inner", c -> {
      if (c.n() == 0) {
        c.ctx().requestRestart("first", "from the loop", Map.of());
      }
      return "done";
    }));
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(requests(r)).singleElement().satisfies(q -> assertThat(q).containsEntry("success", true)
        .containsEntry("requester_stage_id", "inner"));
    assertThat(agent.calls("first")).isEqualTo(2);
    everyRequestAnswered(r);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Requests for runs that do not exist, have ended, or belong to another workflow

  static Stream<String> hostileRunIds() {
    return Stream.of("nope", "", " ", "\u0000", "../runs/x", "x".repeat(10_000), "\u001b[2J", "%", "*");
  }

  @ParameterizedTest(name = "[{index}]")
  @MethodSource("hostileRunIds")
  void aRequestForARunThatDoesNotExistIsAUsageError(String runId) {
    lf = Loopflow.builder().discover(false).store(store).build();
    Throwable t = catchThrowable(() -> lf.requestRestart(runId, new RestartRequest(null, "a", "", Map.of(), 0, 0)));
    assertThat(t).isInstanceOf(LoopflowException.class);
    assertThat(((LoopflowException) t).code()).isEqualTo(ErrorCode.USAGE);
  }

  @Test
  void aRequestForARunThatEndedIsAUsageErrorAndLeavesNothingPending() {
    RunResult r = run(ABC, Map.of());
    Throwable t = catchThrowable(() -> lf.requestRestart(r.runId(), new RestartRequest(null, "a", "", Map.of(), 0,
        0)));
    assertThat(((LoopflowException) t).code()).isEqualTo(ErrorCode.USAGE);
    assertThat(t).hasMessageContaining("has ended (completed)");
    assertThat(store.commands(r.runId())).isEmpty();
  }

  @Test
  void aRequestForARunOfAWorkflowWithoutRestartPolicyIsAnsweredAtOnce() {
    String plain = """
        name: plain
        nodes:
          - {id: a, type: agent, prompt: "a"}
          - {id: b, type: agent, prompt: "b", depends_on: [a]}
        """;
    AtomicReference<Long> seq = new AtomicReference<>();
    RunResult r = run(plain, Map.of("b", c -> {
      seq.set(lf.requestRestart(c.ctx().runId(), new RestartRequest(null, "a", "", Map.of(), 0, 0)));
      return "done";
    }));
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(lf.restartResponse(r.runId(), seq.get())).hasValueSatisfying(resp -> {
      assertThat(resp.success()).isFalse();
      assertThat(resp.errorCode()).isEqualTo(ErrorCode.RESTART_VALIDATION_FAILED);
      assertThat(resp.message()).contains("has no restart_policy");
    });
  }

  @Test
  void aTargetThatIsAStageOfAnotherWorkflowIsNotFound() {
    RunResult r = run(ABC, Map.of("c", asking(Source.JAVA_API, null, "discover_events", "", Map.of())));
    assertThat(requests(r)).singleElement().satisfies(q -> assertThat(errorOf(q)).containsEntry("message",
        "restart validation failed: target stage not found: 'discover_events'"));
  }

  @Test
  void aRequestMadeAsTheRunEndsIsStillAnswered_bugRequestAfterTheLastAnswerWasNeverAnswered() {
    // The requester reads the run as running, and the run completes before the request reaches the bus.
    AtomicReference<RunRecord> running = new AtomicReference<>();
    RunResult r = run(ABC, Map.of("c", c -> {
      running.set(store.findRun(c.ctx().runId()).orElseThrow());
      return "done";
    }));
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(running.get().status()).isEqualTo(RunStatus.RUNNING);
    boolean[] stale = {true};
    RunStore racing = (RunStore) Proxy.newProxyInstance(RunStore.class.getClassLoader(), new Class<?>[] {RunStore.class},
        (proxy, method, args) -> {
          if (method.getName().equals("findRun") && stale[0]) {
            stale[0] = false;
            return java.util.Optional.of(running.get());
          }
          try {
            return method.invoke(store, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    Loopflow requester = Loopflow.builder().discover(false).store(racing).build();

    long seq = requester.requestRestart(r.runId(), new RestartRequest(null, "a", "late", Map.of(), 0, 0));

    RestartResponse resp = requester.restartResponse(r.runId(), seq).orElseThrow(() -> new AssertionError(
        "the request was never answered"));
    assertThat(resp.success()).isFalse();
    assertThat(resp.errorCode()).isEqualTo(ErrorCode.RESTART_VALIDATION_FAILED);
    assertThat(resp.message()).isEqualTo("restart validation failed: the run completed before the request was "
        + "decided");
  }
}
