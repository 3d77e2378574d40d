package dev.loopflow.core.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunStore;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StateMergeTest {
  private final RunStore store = RunStore.inMemory();
  private final Loopflow engine = Loopflow.builder().store(store).build();

  private static final String DRAFTS = """
      name: drafts
      state:
        drafts: {merge: append}
      input:
        drafts: {type: array, default: ["draft 0"]}
        n: {type: integer, default: 0}
      nodes:
        - name: revise
          type: while_loop
          max_iterations: 50
          condition: "state.n < 5"
          body:
            - name: coder
              run: |
                return { drafts = "draft " .. (state.n + 1), n = state.n + 1 }
            - name: seen
              run: |
                return { last_len = #state.drafts, both = (state.n == 5) and 1 or 0 }
      edges:
        - {from: __start__, to: revise}
        - {from: revise, to: __end__}
      """;

  @Test
  void anAppendKeyGrowsByWhatEachPatchAddsAndTheJournalHoldsOnlyTheAddition() {
    RunResult r = engine.run(engine.parse(DRAFTS, "drafts.yaml"), Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.state().get("drafts")).isEqualTo(List.of("draft 0", "draft 1", "draft 2", "draft 3", "draft 4",
        "draft 5"));
    assertThat(r.state()).containsEntry("last_len", 6L);
    List<NodeExecution> coder = store.nodeExecutions(r.runId()).stream()
        .filter(e -> e.position().nodeId().equals("coder")).toList();
    assertThat(coder).hasSize(5);
    assertThat(coder.get(4).statePatch()).containsEntry("drafts", "draft 5");
  }

  @Test
  void aListPatchAppendsEachElementAndASnapshotKeepsItsSize() {
    RunResult r = engine.run(engine.parse("""
        name: extend
        state:
          items: append
        nodes:
          - name: a
            run: return { items = {1, 2} }
          - name: b
            run: |
              return { before = #state.items, items = {3} }
          - name: c
            run: |
              return { after = #state.items }
        edges:
          - {from: __start__, to: a}
          - {from: a, to: b}
          - {from: b, to: c}
        """, "extend.yaml"), Map.of());

    assertThat(r.state()).containsEntry("items", List.of(1L, 2L, 3L)).containsEntry("before", 2L)
        .containsEntry("after", 3L);
  }

  @Test
  void aNodeWritingItsOutputToAnAppendKeyAppendsToo() {
    RunResult r = engine.run(engine.parse("""
        name: output-key
        state:
          notes: append
        nodes:
          - name: first
            type: transform
            template: "one"
            output: notes
          - name: second
            type: transform
            template: "two"
            output: notes
        edges:
          - {from: __start__, to: first}
          - {from: first, to: second}
        """, "output-key.yaml"), Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.state()).containsEntry("notes", List.of("one", "two"));
  }

  @Test
  void appendingToAKeyThatHoldsNoListFailsTheNodeWithTheKeyNamed() {
    RunResult r = engine.run(engine.parse("""
        name: bad
        state:
          items: {merge: append}
        input:
          items: {type: string, default: "x"}
        nodes:
          - name: a
            run: return { items = 1 }
        """, "bad.yaml"), Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message()).contains("state.items is declared 'merge: append' but holds");
  }

  @Test
  void badStateDeclarationsAreReportedTogetherWithTheirPositions() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> engine.parse("""
        name: bad
        state:
          a: {merge: apend}
          b: {merge: append, extra: 1}
          c: [1]
        nodes:
          - name: x
            run: return {}
        """, "bad.yaml"))
        .isInstanceOf(WorkflowInvalidException.class)
        .hasMessageContaining("bad.yaml:3:")
        .hasMessageContaining("unknown merge 'apend'")
        .hasMessageContaining("did you mean 'append'")
        .hasMessageContaining("bad.yaml:4:")
        .hasMessageContaining("unknown field 'extra'")
        .hasMessageContaining("bad.yaml:5:");
  }
}
