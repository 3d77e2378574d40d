package dev.loopflow.core.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A run's result is a value: whoever reads it cannot change it, at any depth, and so cannot change what the store
 * answers for the same run later (the in-memory store once handed out the very maps it kept).
 */
class RunResultTest {
  private static final Loopflow ENGINE = Loopflow.create();
  private static final Workflow NESTED = ENGINE.parse("""
      name: nested
      nodes:
        - id: make
          run: |
            return { doc = { tags = { "a", "b" }, n = 1 } }
      """, "nested.yaml");

  @SuppressWarnings("unchecked")
  static Stream<Arguments> writes() {
    return Stream.<Arguments>of(
        Arguments.of("state: put a key", (Consumer<RunResult>) r -> r.state().put("x", 1)),
        Arguments.of("state: remove a key", (Consumer<RunResult>) r -> r.state().remove("doc")),
        Arguments.of("state: clear", (Consumer<RunResult>) r -> r.state().clear()),
        Arguments.of("state: put into a nested map",
            (Consumer<RunResult>) r -> ((Map<String, Object>) r.state().get("doc")).put("n", 2)),
        Arguments.of("state: add to a nested list", (Consumer<RunResult>) r ->
            ((List<Object>) ((Map<String, Object>) r.state().get("doc")).get("tags")).add("c")),
        Arguments.of("state: set in a nested list", (Consumer<RunResult>) r ->
            ((List<Object>) ((Map<String, Object>) r.state().get("doc")).get("tags")).set(0, "z")),
        Arguments.of("nodes: put a node", (Consumer<RunResult>) r -> r.nodes().put("other", Map.of())),
        Arguments.of("nodes: remove a node", (Consumer<RunResult>) r -> r.nodes().remove("make")),
        Arguments.of("nodes: change a node's status", (Consumer<RunResult>) r ->
            r.nodes().get("make").put("status", "failed")),
        Arguments.of("output: put into the output map",
            (Consumer<RunResult>) r -> ((Map<String, Object>) r.output()).put("x", 1)),
        Arguments.of("output: put into its nested map", (Consumer<RunResult>) r ->
            ((Map<String, Object>) ((Map<String, Object>) r.output()).get("doc")).put("n", 3)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("writes")
  void aResultCannotBeChangedByItsReaderNorChangeWhatTheStoreKeeps_bugResultSharedWithInMemoryStore(String write,
      Consumer<RunResult> change) {
    RunResult r = ENGINE.run(NESTED, Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);

    assertThatThrownBy(() -> change.accept(r)).as(write).isInstanceOf(UnsupportedOperationException.class);

    RunResult again = ENGINE.result(r.runId()).orElseThrow();
    for (RunResult seen : List.of(r, again)) {
      assertThat(seen.state()).containsOnlyKeys("doc");
      assertThat(seen.state().get("doc")).isEqualTo(Map.of("tags", List.of("a", "b"), "n", 1L));
      assertThat(seen.nodes()).containsOnlyKeys("make");
      assertThat(seen.nodes().get("make")).containsEntry("status", "completed");
      assertThat(seen.output()).isEqualTo(Map.of("doc", Map.of("tags", List.of("a", "b"), "n", 1L)));
    }
  }
}
