package dev.loopflow.core.secrets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a run hands out (its result, its events, its journal) never holds a credential it knows of. */
class RunRedactionTest {
  private static final String KEY = "q7Zp2LmX9vR4tW8nK3cY";

  private final RunStore store = RunStore.inMemory();
  private final Loopflow engine = Loopflow.builder().store(store).build();
  private final List<Event> events = new ArrayList<>();

  private RunResult run(String yaml, Map<String, Object> inputs) {
    Workflow wf = engine.parse(yaml, "wf.yaml");
    return engine.run(wf, options(inputs).build());
  }

  private RunOptions.Builder options(Map<String, Object> inputs) {
    return RunOptions.builder().inputs(inputs).listener(events::add)
        .environment(Map.of("MY_API_KEY", KEY, "PATH", System.getenv("PATH")));
  }

  /** Everything the run handed out or journaled, as text. */
  private String everything(RunResult r) {
    StringBuilder sb = new StringBuilder(Json.compact(r.toJson()));
    events.forEach(e -> sb.append(Events.toJson(e)));
    store.events(r.runId()).forEach(e -> sb.append(Events.toJson(e)));
    store.nodeExecutions(r.runId()).forEach(e -> sb.append(e));
    sb.append(store.findRun(r.runId()).orElseThrow());
    return sb.toString();
  }

  @Test
  void aSecretReturnedAsAMapKeyIsMaskedInResultStateAndJournal_bugMapKeysNeverRedacted() {
    RunResult r = run("""
        nodes:
          - id: read
            bash: 'printf %s "$MY_API_KEY"'
            output: tok
          - id: keyed
            depends_on: [read]
            run: |
              return {nested = {[state.tok] = {[state.tok .. "-x"] = 1}}, plain = {[state.tok] = true}}
        """, Map.of());

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(everything(r)).doesNotContain(KEY).contains("[redacted]-x");
    assertThat(r.state()).containsKey("nested");
  }

  @Test
  void aPreviewCutAcrossASecretLeavesNoFragment_bugPreviewsCarrySecrets() {
    RunResult r = run("""
        nodes:
          - id: long
            bash: 'printf "%0110d%s tail" 0 "$MY_API_KEY"'
        """, Map.of());

    Event.NodeCompleted done = events.stream().filter(Event.NodeCompleted.class::isInstance)
        .map(Event.NodeCompleted.class::cast).findFirst().orElseThrow();
    assertThat(done.outputPreview()).startsWith("0".repeat(110) + "[redact").doesNotContain(KEY.substring(0, 6));
    assertThat(everything(r)).doesNotContain(KEY.substring(0, 6)).doesNotContain(KEY.substring(KEY.length() - 6));
  }

  @Test
  void aPreviewOfAResultWithACredentialKeyIsMaskedByKey_bugPreviewsCarrySecrets() {
    RunResult r = run("""
        nodes:
          - id: login
            type: transform
            value: {session: {access_token: "{{ input.t }}", pin_password: "{{ input.p }}"}}
        """, Map.of("t", "opaque-session-0123", "p", "zq4711"));

    // The short secret has letters that no timestamp or hex id contains (a bare "4711" was found in the nanoseconds
    // of a timestamp now and then).
    String all = everything(r);
    assertThat(all).doesNotContain("opaque-session-0123").doesNotContain("zq4711");
  }

  @Test
  void anErrorMessageEchoingTheKeyIsMaskedInEventsResultAndJournal() {
    RunResult r = run("""
        nodes:
          - id: boom
            bash: 'echo "auth failed for $MY_API_KEY" >&2; exit 1'
        """, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message()).contains("auth failed for [redacted]");
    assertThat(everything(r)).doesNotContain(KEY);
  }

  @Test
  void aTokenWrittenInTheWorkflowIsMaskedInTheJournaledSource_bugSourceStoredRaw() {
    String token = "hard-coded-0123456789";
    String yaml = """
        nodes:
          - id: call
            bash: 'test "$SERVICE_TOKEN" = "hard-coded-0123456789" && echo same'
            env: {SERVICE_TOKEN: "hard-coded-0123456789"}
        """;
    RunResult r = run(yaml, Map.of());

    assertThat(r.output()).isEqualTo("same");
    var rec = store.findRun(r.runId()).orElseThrow();
    assertThat(rec.source()).doesNotContain(token).isEqualTo(yaml.replace(token, "[redacted]"));
    assertThat(rec.sourceHash()).isEqualTo(Loopflow.sourceHash(yaml));
    assertThat(rec.sourceIsExact()).isFalse();
    assertThat(everything(r)).doesNotContain(token);
  }

  @Test
  void aRunWhoseJournaledSourceWasMaskedResumesOnlyWithItsWorkflow() throws Exception {
    String yaml = """
        nodes:
          - id: ask
            approval: "go?"
          - id: use
            depends_on: [ask]
            bash: 'test "$SERVICE_TOKEN" = "hard-coded-0123456789" && echo same'
            env: {SERVICE_TOKEN: "hard-coded-0123456789"}
        """;
    Workflow wf = engine.parse(yaml, "wf.yaml");
    RunResult paused = engine.run(wf, options(Map.of()).build());
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);

    assertThatThrownBy(() -> engine.resume(paused.runId(), ResumeInput.approve(null), RunOptions.defaults()))
        .isInstanceOfSatisfying(LoopflowException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.RUN_NOT_RESUMABLE))
        .hasMessageContaining("credentials masked");

    RunResult done = engine.resume(wf, paused.runId(), ResumeInput.approve(null), options(Map.of()).build(), false)
        .await();
    assertThat(done.status()).as(String.valueOf(done.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(done.nodes().get("use").get("output")).isEqualTo("same");
  }

  @Test
  void aHeaderTemplateRenderedFromAnOrdinaryInputIsMaskedInTheJournal() {
    RunResult r = run("""
        input: {t: string}
        nodes:
          - id: call
            type: http
            url: "http://127.0.0.1:1/"
            headers: {Authorization: "Bearer {{ input.t }}"}
            allow_failure: true
          - id: echo
            depends_on: [call]
            type: transform
            value: "sent {{ input.t }}"
        """, Map.of("t", "plain-input-token-1"));

    assertThat(store.nodeExecutions(r.runId()).get(0).input()).containsEntry("Bearer {{ input.t }}", "[redacted]");
    assertThat(everything(r)).doesNotContain("plain-input-token-1");
  }

  @Test
  void inputsDeclaredWriteOnlyAreMaskedWhateverTheirName() {
    RunResult r = run("""
        input:
          pin: {type: string, writeOnly: true}
        nodes:
          - id: show
            type: transform
            value: "pin is {{ input.pin }}"
        """, Map.of("pin", "pin-0000-1111"));

    assertThat(r.output()).isEqualTo("pin is [redacted]");
    assertThat(everything(r)).doesNotContain("pin-0000-1111");
  }
}
