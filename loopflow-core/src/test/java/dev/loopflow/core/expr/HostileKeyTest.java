package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Jinjava resolves a few reserved names (its interpreter, "filter:NAME", "exptest:NAME") whatever map they are
 * looked up in, so a key taken from a value ({@code state[input.field]}) reached the engine's own objects; journaling
 * the interpreter threw and the run stayed 'running'. No engine object becomes a value: such a lookup reads as
 * missing, and the run ends.
 */
class HostileKeyTest {
  private static final Loopflow ENGINE = Loopflow.create();

  @TempDir
  Path tmp;

  static Stream<Arguments> cases() {
    List<String> keys = List.of("____int3rpr3t3r____", "filter:render", "filter:upper", "exptest:defined",
        "exptest:sameas", "filter:tojson");
    List<String> templates = List.of("{{ state[input.field] }}", "{{ input[input.field] }}",
        "{{ state[input.field].context }}", "{{ [state[input.field]] }}", "{{ {'a': state[input.field]} }}",
        "x {{ state[input.field] }} y", "{{ state[input.field] is none }}", "{{ state[input.field].getContext() }}",
        "{{ state[input.field].interpreter }}", "{% if state[input.field] %}{{ state[input.field] }}{% endif %}",
        "{{ state[input.field] | string }}", "{{ state[input.field] | upper }}", "{{ state[input.field] | tojson }}");
    return keys.stream().flatMap(k -> templates.stream().map(t -> Arguments.of(t, k)));
  }

  @ParameterizedTest(name = "{0} with {1}")
  @MethodSource("cases")
  void aHostileKeyNeverReachesAnEngineObject_bugInterpreterJournaledAndRunStayedRunning(String template,
      String key) {
    Workflow wf = ENGINE.parse("""
        name: hostile
        input:
          field: {type: string}
        nodes:
          - id: t
            type: transform
            template: "%s"
        """.formatted(template.replace("\"", "\\\"")), "t.yaml");

    RunResult r = ENGINE.run(wf, RunOptions.builder().input("field", key).workingDirectory(tmp).build());

    assertThat(r.status()).as(String.valueOf(r.error())).isIn(RunStatus.COMPLETED, RunStatus.FAILED);
    String out = String.valueOf(r.output());
    assertThat(out).doesNotContain("Interpreter").doesNotContain("hubspot").doesNotContain("Filter@")
        .doesNotContain("Context");
  }
}
