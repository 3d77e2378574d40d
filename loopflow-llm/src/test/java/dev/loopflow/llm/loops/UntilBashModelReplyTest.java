package dev.loopflow.llm.loops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A model's reply compared in an until_bash test can never make bash run a command. */
class UntilBashModelReplyTest {
  @TempDir
  Path dir;

  /** A group that asks for a score and ends once the reply, compared in bash, is at least 8. */
  private static String scored(String reply) {
    return """
        defaults: {model: "openai:gpt-4o-mini"}
        mock: {responses: ["%s"]}
        nodes:
          - id: g
            loop_group:
              max_iterations: 3
              until_bash: '[[ {{ score.text }} -ge 8 ]]'
              nodes:
                - id: score
                  prompt: "Rate the draft from 0 to 10."
        """.formatted(reply);
  }

  @ParameterizedTest
  @ValueSource(strings = {"a[$(touch @F@)]", "x[`touch @F@`]", "a[$(touch @F@)]+1", "b[c[$(touch @F@)]]",
      "1 -o x[$(touch @F@)]", "Score: 9 a[$(touch @F@)]", "$(touch @F@)", "9; touch @F@"})
  void modelReplyInUntilBashCannotRunCommand_bugBashRecursiveArithmetic(String reply) {
    Path marker = dir.resolve("pwned");
    LoopRuns runs = new LoopRuns().in(dir);
    RunResult r = runs.run(scored(reply.replace("@F@", marker.toString())));

    assertThat(marker).as("the marker file").doesNotExist();
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("node_failed");
    assertThat(r.error().details()).isEqualTo(Map.of("field", "until_bash", "source", "{{ score.text }}",
        "rule", "integer"));
    assertThat(r.nodes().get("g")).containsEntry("count", 1).containsEntry("exit_reason", "error");
  }

  @ParameterizedTest
  @ValueSource(strings = {"9", " 9\n", "10"})
  void aNumericReplyEndsTheLoop(String reply) {
    LoopRuns runs = new LoopRuns().in(dir);
    RunResult r = runs.run(scored(reply.replace("\n", "\\n")));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("g")).containsEntry("count", 1).containsEntry("exit_reason", "command");
  }
}
