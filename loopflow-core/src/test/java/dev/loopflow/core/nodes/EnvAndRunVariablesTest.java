package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code env} holds the run's environment except credentials; {@code run} identifies the run. */
class EnvAndRunVariablesTest {
  private final Loopflow engine = Loopflow.create();

  private static final Map<String, String> ENV = Map.of("GREETING", "hello", "HOME", "/home/ada",
      "OPENAI_API_KEY", "sk-secret-value-123", "GITHUB_TOKEN", "ghp_secret_value", "DB_PASSWORD", "hunter2hunter2",
      "AWS_SECRET_ACCESS_KEY", "aws-secret-value", "MY_CREDENTIALS", "c-secret-value");

  private RunResult run(String template) {
    Workflow wf = engine.parse("""
        name: vars
        nodes:
          - id: t
            type: transform
            template: "TEMPLATE"
        """.replace("TEMPLATE", template.replace("\"", "\\\"")), "vars.yaml");
    return engine.run(wf, RunOptions.builder().environment(ENV).build());
  }

  @Test
  void envReadsTheRunsEnvironment_bugEnvRendersEmpty() {
    assertThat(run("{{ env.GREETING }} from {{ env.HOME }}").nodes().get("t"))
        .containsEntry("output", "hello from /home/ada");
    assertThat(run("[{{ env.NOT_SET }}]").nodes().get("t")).containsEntry("output", "[]");
  }

  @ParameterizedTest
  @ValueSource(strings = {"{{ env }}", "{{ env | tojson }}", "{{ env.values() | list | join(',') }}",
      "{{ env['OPENAI' ~ '_API_KEY'] }}", "{{ env.get('GITHUB_' ~ 'TOKEN') }}",
      "{% for k in env %}{{ env[k] }}{% endfor %}", "{{ env.items() | list }}"})
  void credentialNamedVariablesAreNeverInEnv(String template) {
    String out = String.valueOf(run(template).nodes().get("t").get("output"));
    assertThat(out).doesNotContain("secret", "hunter2", "ghp_", "sk-");
  }

  @Test
  void runIdentifiesTheRun_bugRunRendersEmpty() {
    RunResult r = run("{{ run.id }}|{{ run.workflow }}|{{ run.file }}|{{ run.started_at }}");
    String[] parts = String.valueOf(r.nodes().get("t").get("output")).split("\\|");

    assertThat(parts[0]).isEqualTo(r.runId());
    assertThat(parts[1]).isEqualTo("vars");
    assertThat(parts[2]).isEqualTo("vars.yaml");
    assertThat(Instant.parse(parts[3])).isBeforeOrEqualTo(Instant.now());
  }

  @Test
  void runStartedAtIsTheFirstStartAcrossAResume() throws InterruptedException {
    Workflow wf = engine.parse("""
        name: paused
        nodes:
          - {id: before, type: transform, template: "{{ run.started_at }}"}
          - {id: ask, approval: "go?", depends_on: [before]}
          - {id: after, type: transform, template: "{{ run.started_at }} {{ run.id }}", depends_on: [ask]}
        """, "paused.yaml");
    RunResult paused = engine.run(wf, Map.of());
    assertThat(paused.status()).isEqualTo(RunStatus.PAUSED);

    RunResult done = engine.resume(wf, paused.runId(), ResumeInput.approve(null), RunOptions.defaults(), false)
        .await();

    assertThat(done.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(done.nodes().get("after").get("output"))
        .isEqualTo(paused.nodes().get("before").get("output") + " " + paused.runId());
  }
}
