package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store that fails after it opened (here: a journal row that does not read back) is a runtime failure, exit
 * status 1, in every command: commands that report usage errors themselves let store errors through.
 */
class StoreFailureCliTest {
  @TempDir
  static Path dir;

  static String store;

  @BeforeAll
  static void corruptJournal() throws Exception {
    Path db = dir.resolve("runs.db");
    store = "sqlite:" + db;
    CliTest.Run r = CliTest.cli("run", "../examples/hello-shell.yaml", "--store", store, "--quiet", "--json",
        "--run-id", "run_broken");
    assertThat(r.status()).as(r.err()).isZero();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE lf_runs SET status = 'EXPLODED'");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"cancel", "resume", "show", "events", "runs"})
  void aJournalThatDoesNotReadBackIsARuntimeFailure(String command) {
    List<String> args = command.equals("runs") ? List.of(command, "--store", store)
        : List.of(command, "run_broken", "--store", store);

    CliTest.Run r = CliTest.cli(args.toArray(String[]::new));

    assertThat(r.status()).as(r.err()).isEqualTo(1);
    CliErrorsTest.assertOneLine(r.err(), "loopflow: error: cannot read the run store " + store);
  }
}
