package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.cli.CliTest.Run;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code loopflow delete RUN_ID}: the run and its journal go; an unknown run or a refusal is exit 2 with its code. */
class DeleteCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private String run(String store, Path file) throws Exception {
    Run r = cli("run", file.toString(), "--store", store, "--json");
    assertThat(r.status()).as(r.err()).isZero();
    return JSON.readTree(r.out()).path("run_id").asText();
  }

  @Test
  void aFinishedRunIsDeletedAndAnotherStays() throws Exception {
    String store = "sqlite:" + dir.resolve("runs.db");
    Path file = dir.resolve("wf.yaml");
    Files.writeString(file, """
        name: del
        nodes:
          - {id: a, type: transform, template: hello}
        """);
    String gone = run(store, file);
    String kept = run(store, file);

    Run d = cli("delete", gone, "--store", store);
    assertThat(d.status()).as(d.err()).isZero();
    assertThat(d.out()).contains(gone + " deleted");
    try (RunStore s = JdbcStores.open(store)) {
      assertThat(s.findRun(gone)).isEmpty();
      assertThat(s.nodeExecutions(gone)).isEmpty();
      assertThat(s.events(gone)).isEmpty();
      assertThat(s.findRun(kept)).isPresent();
    }
    Run again = cli("delete", gone, "--store", store);
    assertThat(again.status()).isEqualTo(2);
    assertThat(again.err()).contains("no run '" + gone + "'");
  }

  @Test
  void anOriginWithAForkIsRefusedByCodeNamingTheFork() throws Exception {
    String store = "sqlite:" + dir.resolve("runs.db");
    Path file = dir.resolve("loop.yaml");
    Files.writeString(file, """
        name: counter
        nodes:
          - id: count_loop
            type: while_loop
            max_iterations: 10
            condition: "(state.count or 0) < 3"
            body:
              - id: increment
                run: |
                  return { count = (state.count or 0) + 1 }
        """);
    String origin = run(store, file);
    String fork = "fork-of-" + origin;
    Run f = cli("fork", origin, "--at", "count_loop:2", "--store", store, "--run-id", fork, "--quiet");
    assertThat(f.status()).as(f.err()).isZero();

    Run d = cli("delete", origin, "--store", store);
    assertThat(d.status()).isEqualTo(2);
    assertThat(d.err()).contains("run_has_forks").contains(fork);
    assertThat(cli("delete", fork, "--store", store).status()).isZero();
    assertThat(cli("delete", origin, "--store", store).status()).isZero();
  }
}
