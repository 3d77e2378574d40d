package dev.loopflow.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A paused human step with a form: its schema travels with what the run waits for, a resume's values are checked
 * against it under the run's lease (a wrong answer leaves the run paused), and accepted values reach the approval's
 * output and the loop's next pass, from the journal on a later resume too.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AnswerFormTest {
  static final String APPROVAL = """
      name: ship
      nodes:
        - id: ask
          approval: "Ship it?"
          schema:
            type: object
            required: [version]
            properties:
              version: {type: string, title: Version, minLength: 1}
              replicas: {type: integer, minimum: 1, default: 2}
              channel: {enum: [stable, beta]}
              notify: {type: boolean}
        - id: after
          depends_on: [ask]
          type: transform
          template: "v={{ ask.values.version }} r={{ ask.values.replicas }} c={{ ask.values.channel }}"
          output: shipped
      """;

  static final String GATE = """
      name: tune
      nodes:
        - id: fix
          loop_group:
            max_iterations: 2
            interactive: true
            gate_message: "pass {{ loop.iteration }} done; settings?"
            gate_schema:
              type: object
              required: [temperature]
              properties:
                temperature: {type: number, maximum: 2}
                tone: {enum: [terse, chatty]}
            nodes:
              - id: step
                type: transform
                template: "pass {{ loop.iteration }} t={{ loop.user_values.temperature }} in={{ loop.user_input }}"
                output: latest
      """;

  private final Loopflow engine = Loopflow.builder().build();

  private static Map<String, Object> values(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  private RunResult resume(Workflow wf, String id, ResumeInput in) throws Exception {
    return engine.resume(wf, id, in, RunOptions.defaults(), false).await();
  }

  @Test
  void theApprovalsFormIsWhatTheRunWaitsForAndItsValuesAreTheNodesValues() throws Exception {
    Workflow wf = engine.parse(APPROVAL, "ship.yaml");
    RunResult paused = engine.start(wf, RunOptions.defaults()).await();
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);
    assertThat(paused.waiting().schema()).containsEntry("type", "object").containsKey("properties");
    assertThat(paused.waiting().toJson()).containsKey("schema");

    RunResult done = resume(wf, paused.runId(), ResumeInput.none().withValues(values("version", "1.2",
        "replicas", 3, "channel", "beta")));

    assertThat(done.status()).as("%s", done.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(done.state()).containsEntry("shipped", "v=1.2 r=3 c=beta");
    assertThat(done.nodes().get("ask")).containsEntry("decision", "approved")
        .containsEntry("values", values("version", "1.2", "replicas", 3, "channel", "beta"));
  }

  @Test
  void wrongAnswersAreRefusedWithTheirOwnCodeAndTheRunStaysPaused() throws Exception {
    Workflow wf = engine.parse(APPROVAL, "ship.yaml");
    RunResult paused = engine.start(wf, RunOptions.defaults()).await();
    Map<String, Object> deep = values("version", "x");
    Map<String, Object> inner = deep;
    for (int i = 0; i < 50; i++) {
      Map<String, Object> next = new LinkedHashMap<>();
      inner.put("nested", next);
      inner = next;
    }
    List<ResumeInput> wrong = List.of(
        ResumeInput.approve(null),
        ResumeInput.text("approve"),
        ResumeInput.none().withValues(Map.of()),
        ResumeInput.none().withValues(values("version", 12)),
        ResumeInput.none().withValues(values("version", "")),
        ResumeInput.none().withValues(values("version", "1", "replicas", 0)),
        ResumeInput.none().withValues(values("version", "1", "replicas", 1.5)),
        ResumeInput.none().withValues(values("version", "1", "channel", "nightly")),
        ResumeInput.none().withValues(values("version", "1", "notify", "yes")),
        ResumeInput.none().withValues(values("version", "1", "evil\n\u001b[31m<script>", 1)),
        ResumeInput.none().withValues(values("version", "x".repeat(70_000))),
        ResumeInput.none().withValues(deep),
        ResumeInput.approve("ok").withValues(values("version", List.of("a"))));
    for (ResumeInput in : wrong) {
      assertThatThrownBy(() -> engine.resume(wf, paused.runId(), in, RunOptions.defaults(), false))
          .as("%s", in)
          .isInstanceOfSatisfying(LoopflowException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.ANSWER_INVALID);
            assertThat(e.getMessage()).doesNotContain("\n").doesNotContain("\u001b").hasSizeLessThan(1200)
                .contains("ask");
          });
      RunRecord rec = engine.store().findRun(paused.runId()).orElseThrow();
      assertThat(rec.status()).isEqualTo(RunStatus.PAUSED);
      assertThat(rec.waiting().path()).isEqualTo("ask");
    }
    assertThatThrownBy(() -> engine.resume(wf, paused.runId(), ResumeInput.approve(null), RunOptions.defaults(),
        false)).hasMessageContaining("values are required").hasMessageContaining("version");

    // A rejection needs no values; the rejected approval fails the node as before.
    RunResult rejected = resume(wf, paused.runId(), ResumeInput.reject("not today"));
    assertThat(rejected.status()).isEqualTo(RunStatus.FAILED);
  }

  @Test
  void valuesForAStepWithoutAFormAreRefused() throws Exception {
    Workflow wf = engine.parse("""
        name: plain
        nodes:
          - id: ask
            approval: "ok?"
        """, "plain.yaml");
    RunResult paused = engine.start(wf, RunOptions.defaults()).await();
    assertThatThrownBy(() -> engine.resume(wf, paused.runId(), ResumeInput.approve(null).withValues(
        values("a", 1)), RunOptions.defaults(), false))
        .isInstanceOfSatisfying(LoopflowException.class, e -> assertThat(e.code()).isEqualTo(
            ErrorCode.ANSWER_INVALID))
        .hasMessageContaining("asks for no values");
    RunResult done = resume(wf, paused.runId(), ResumeInput.approve(null));
    assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(done.nodes().get("ask")).containsEntry("values", Map.of());
  }

  @Test
  void aGatesValuesReachTheNextPassAsUserValuesAndTheRunResumedEventCarriesThem() throws Exception {
    Workflow wf = engine.parse(GATE, "tune.yaml");
    RunResult paused = engine.start(wf, RunOptions.defaults()).await();
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);
    assertThat(paused.waiting().path()).isEqualTo("fix[1].gate");
    assertThat(paused.waiting().schema()).containsKey("properties");
    assertThat(paused.state()).containsEntry("latest", "pass 1 t= in=");

    assertThatThrownBy(() -> engine.resume(wf, paused.runId(), ResumeInput.text("warmer"), RunOptions.defaults(),
        false)).isInstanceOfSatisfying(LoopflowException.class, e -> assertThat(e.code()).isEqualTo(
            ErrorCode.ANSWER_INVALID)).hasMessageContaining("temperature");
    assertThatThrownBy(() -> engine.resume(wf, paused.runId(), ResumeInput.none().withValues(
        values("temperature", 3)), RunOptions.defaults(), false)).hasMessageContaining("fix[1].gate");

    RunResult done = resume(wf, paused.runId(), ResumeInput.text("warmer").withValues(values("temperature", 0.7)));

    assertThat(done.status()).as("%s", done.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(done.state()).containsEntry("latest", "pass 2 t=0.7 in=warmer");
    Event.RunResumed resumed = engine.store().events(paused.runId()).stream()
        .filter(Event.RunResumed.class::isInstance).map(Event.RunResumed.class::cast).findFirst().orElseThrow();
    assertThat(resumed.answer()).containsEntry("values", values("temperature", 0.7));
  }

  @Test
  void aGateAnsweredWithValuesOnlyHasThemAsJsonInUserInput() throws Exception {
    Workflow wf = engine.parse(GATE, "tune.yaml");
    RunResult paused = engine.start(wf, RunOptions.defaults()).await();
    RunResult done = resume(wf, paused.runId(), ResumeInput.none().withValues(values("temperature", 1)));
    assertThat(done.state()).containsEntry("latest", "pass 2 t=1 in={\"temperature\":1}");
  }

  /** The values are journaled with the answer: a run that fails after it and is resumed still reads them. */
  @Test
  void aResumeAfterAFailureKeepsTheAnsweredValues(@TempDir Path dir) throws Exception {
    Path flag = dir.resolve("go");
    Workflow wf = engine.parse("""
        name: later
        input:
          flag: {type: string}
        nodes:
          - id: ask
            approval: "Ship it?"
            schema:
              type: object
              required: [version]
              properties:
                version: {type: string}
          - id: gate
            depends_on: [ask]
            bash: test -f "$FLAG"
            env: {FLAG: "{{ input.flag }}"}
          - id: after
            depends_on: [gate]
            type: transform
            template: "v={{ ask.values.version }}"
            output: shipped
        """, "later.yaml");
    RunResult paused = engine.start(wf, RunOptions.builder().inputs(Map.of("flag", flag.toString())).build())
        .await();
    RunResult failed = resume(wf, paused.runId(), ResumeInput.approve("go").withValues(values("version", "9.1")));
    assertThat(failed.status()).isEqualTo(RunStatus.FAILED);

    Files.writeString(flag, "");
    RunResult done = resume(wf, paused.runId(), ResumeInput.none());

    assertThat(done.status()).as("%s", done.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(done.state()).containsEntry("shipped", "v=9.1");
  }

  @Test
  void aGateFailingAfterItsAnswerKeepsTheValuesOnResume(@TempDir Path dir) throws Exception {
    Path flag = dir.resolve("go");
    Workflow wf = engine.parse(GATE.replace("""
              - id: step
      """, """
              - id: check
                when: "loop.iteration == 2"
                bash: test -f "$FLAG"
                env: {FLAG: "%s"}
              - id: step
                depends_on: [check]
      """.formatted(flag)), "tune.yaml");
    RunResult paused = engine.start(wf, RunOptions.defaults()).await();
    assertThat(paused.status()).as("%s", paused.error()).isEqualTo(RunStatus.PAUSED);
    RunResult failed = resume(wf, paused.runId(), ResumeInput.none().withValues(values("temperature", 1.5,
        "tone", "terse")));
    assertThat(failed.status()).isEqualTo(RunStatus.FAILED);

    Files.writeString(flag, "");
    RunResult done = resume(wf, paused.runId(), ResumeInput.none());

    assertThat(done.status()).as("%s", done.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(done.state()).containsEntry("latest", "pass 2 t=1.5 in={\"temperature\":1.5,\"tone\":\"terse\"}");
  }
}
