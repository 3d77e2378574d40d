package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.LoopIterationExceededException;
import dev.loopflow.core.error.MaxIterationsExceededException;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.store.RunStore;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A result read back from a SQLite journal (in another store instance, as a later process would) gives a Java caller
 * the same typed exception as the result the engine returned: the loop, its bound and the passes survive the
 * journal's JSON.
 */
class TypedRunErrorReadBackTest {
  @TempDir
  Path dir;

  @Test
  void aLoopBoundFailureReadFromTheJournalThrowsTheTypedException_bugOnlyAnUntypedDetailsMap() throws Exception {
    String url = "sqlite:" + dir.resolve("runs.db");
    String edgeRun;
    String whileRun;
    try (RunStore store = JdbcStores.open(url)) {
      Loopflow engine = Loopflow.builder().store(store).build();
      edgeRun = engine.run(engine.parse("""
          name: edge
          nodes:
            - {id: work, run: "return { n = (state.n or 0) + 1 }"}
            - {id: check, depends_on: [work], run: "return { checked = true }"}
          edges:
            - {from: check, to: work, type: loop, maxIterations: 2}
          """, "edge.yaml"), Map.of()).runId();
      whileRun = engine.run(engine.parse("""
          name: forever
          nodes:
            - id: w
              type: while_loop
              condition: "true"
              max_iterations: 3
              body:
                - {id: inc, run: "return { n = (state.n or 0) + 1 }"}
          """, "while.yaml"), Map.of()).runId();
    }
    try (RunStore store = JdbcStores.open(url)) {
      Loopflow reader = Loopflow.builder().store(store).build();
      RunResult edge = reader.inspect(edgeRun).orElseThrow().result();
      assertThat(catchThrowable(edge::orThrow)).isInstanceOfSatisfying(LoopIterationExceededException.class, e -> {
        assertThat(e.loopId()).isEqualTo("check->work");
        assertThat(e.maxIterations()).isEqualTo(2);
        assertThat(e.passes()).isEqualTo(2);
        assertThat(e.getMessage()).isEqualTo(edge.error().message());
      });
      RunResult loop = reader.inspect(whileRun).orElseThrow().result();
      assertThat(catchThrowable(loop::orThrow)).isInstanceOfSatisfying(MaxIterationsExceededException.class, e -> {
        assertThat(e.loopId()).isEqualTo("w");
        assertThat(e.construct()).isEqualTo("while_loop");
        assertThat(e.maxIterations()).isEqualTo(3);
        assertThat(e.passes()).isEqualTo(3);
      });
    }
  }
}
