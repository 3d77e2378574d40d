package dev.loopflow.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The run's output is what its output: template computes, or the run fails saying why; never a silent null. */
class WorkflowOutputTest {
  private final Loopflow engine = Loopflow.create();

  private RunResult run(String output) {
    return engine.run(engine.parse("""
        name: out
        nodes:
          - {id: a, type: transform, template: "not a number"}
        output: "OUTPUT"
        """.replace("OUTPUT", output.replace("\"", "\\\"")), "out.yaml"), Map.of());
  }

  @ParameterizedTest
  @ValueSource(strings = {"{{ a.output | abs }}", "{{ a.output | fromjson }}", "{{ a.output | round }}",
      "{{ a.output | log }}", "x {{ a.output | root }}"})
  void outputTemplateThatFailsFailsTheRun_bugFailedOutputReportedAsCompletedNull(String output) {
    RunResult r = run(output);

    assertThat(r.status()).as(output).isEqualTo(RunStatus.FAILED);
    assertThat(r.output()).isNull();
    assertThat(r.error().code()).isEqualTo("node_failed");
    assertThat(r.error().message()).startsWith("the workflow's output: ").contains(output.contains("fromjson")
        ? "fromjson" : "");
  }

  @Test
  void outputTemplateThatRendersIsTheRunsOutput() {
    assertThat(run("{{ a.output | upper }}").output()).isEqualTo("NOT A NUMBER");
    assertThat(run("{{ a.output | length }}").output()).isEqualTo(12);
  }
}
