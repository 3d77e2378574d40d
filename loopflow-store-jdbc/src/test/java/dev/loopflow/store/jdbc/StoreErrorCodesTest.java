package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sqlite.SQLiteDataSource;

/**
 * A store that cannot do its work fails with the root exception and code {@code store_unavailable}: when it cannot
 * be opened, and when its journal does not read back or refuses a write.
 */
class StoreErrorCodesTest {
  @TempDir
  Path dir;

  private static LoopflowException thrown(ThrowingCallable call) {
    LoopflowException e = catchThrowableOfType(LoopflowException.class, call);
    assertThat(e).as("expected a LoopflowException").isNotNull();
    return e;
  }

  @Test
  void aStoreThatCannotBeOpenedIsStoreUnavailable() throws IOException {
    Files.writeString(dir.resolve("plain-file"), "not a directory");
    Path directory = Files.createDirectories(dir.resolve("a-directory.db"));
    for (String url : new String[] {"sqlite:" + dir.resolve("plain-file/r.db"), "sqlite:" + directory,
        "sqlite:" + dir.resolve("plain-file"), "postgresql://nobody@127.0.0.1:1/db"}) {
      LoopflowException e = thrown(() -> JdbcStores.open(url).close());
      assertThat(e.code()).as(url).isEqualTo(ErrorCode.STORE_UNAVAILABLE);
    }
  }

  @Test
  void aStoreFileThatCannotBeCreatedKeepsTheFileSystemErrorAsItsCause() throws IOException {
    Files.writeString(dir.resolve("plain-file"), "not a directory");

    LoopflowException e = thrown(() -> JdbcStores.open("sqlite:" + dir.resolve("plain-file/r.db")).close());

    assertThat(e.getCause()).isInstanceOf(java.nio.file.FileSystemException.class);
  }

  /** Edits of the journal behind the store's back, each of which leaves a row that does not read back. */
  static Stream<Arguments> corruptions() {
    return Stream.of(
        corrupt("unknown run status", "UPDATE lf_runs SET status = 'EXPLODED'", s -> s.listRuns()),
        corrupt("run start not a date", "UPDATE lf_runs SET started_at = 'yesterday'", s -> s.listRuns()),
        corrupt("run inputs not JSON", "UPDATE lf_runs SET inputs_json = '{nope'", s -> s.listRuns()),
        corrupt("run found by id", "UPDATE lf_runs SET status = 'EXPLODED'", s -> s.findRun(RUN_ID)),
        corrupt("unknown execution status", "UPDATE lf_node_executions SET status = 'EXPLODED'",
            s -> s.nodeExecutions(RUN_ID)),
        corrupt("execution result not JSON", "UPDATE lf_node_executions SET result_json = '[1,'",
            s -> s.nodeExecutions(RUN_ID)),
        corrupt("execution loop path not JSON", "UPDATE lf_node_executions SET loops_json = 'x'",
            s -> s.nodeExecutions(RUN_ID)),
        corrupt("event not JSON", "UPDATE lf_events SET body = 'not json'", s -> s.events(RUN_ID)),
        corrupt("event of an unknown type", "UPDATE lf_events SET body = '{\"type\":\"run.exploded\"}'",
            s -> s.events(RUN_ID)),
        corrupt("event field of the wrong type", "UPDATE lf_events SET body = '{\"type\":\"run.started\","
            + "\"run_id\":1,\"seq\":\"x\",\"at\":\"never\"}'", s -> s.events(RUN_ID)),
        corrupt("journal tables gone", "DROP TABLE lf_events", s -> s.events(RUN_ID)));
  }

  private static Arguments corrupt(String name, String sql, Consumer<RunStore> read) {
    return Arguments.of(name, sql, read);
  }

  /** The one run in the store; read before the corruption reaches the runs table's own rows. */
  private static String runId(RunStore s) {
    return RUN_ID;
  }

  private static final String RUN_ID = "run_corruptible";

  @ParameterizedTest(name = "{0}")
  @MethodSource("corruptions")
  void aJournalThatDoesNotReadBackIsStoreUnavailable(String name, String sql, Consumer<RunStore> read)
      throws SQLException {
    Path file = dir.resolve("journal.db");
    try (RunStore store = JdbcStores.open("sqlite:" + file)) {
      Loopflow engine = Loopflow.builder().store(store).discover(false).build();
      RunResult r = engine.run(engine.parse("name: one\nnodes:\n  - id: a\n    bash: echo hi\n", "one.yaml"),
          dev.loopflow.core.run.RunOptions.builder().runId(RUN_ID).build());
      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    }
    SQLiteDataSource raw = new SQLiteDataSource();
    raw.setUrl("jdbc:sqlite:" + file);
    try (Connection c = raw.getConnection(); Statement st = c.createStatement()) {
      st.executeUpdate(sql);
    }

    try (RunStore store = JdbcStores.open("sqlite:" + file)) {
      LoopflowException e = thrown(() -> read.accept(store));
      assertThat(e.code()).as(name).isEqualTo(ErrorCode.STORE_UNAVAILABLE);
    }
  }

  @Test
  void aWriteTheDatabaseRefusesIsStoreUnavailable() throws SQLException {
    Path file = dir.resolve("journal.db");
    try (RunStore store = JdbcStores.open("sqlite:" + file)) {
      Loopflow engine = Loopflow.builder().store(store).discover(false).build();
      engine.run(engine.parse("name: one\nnodes:\n  - id: a\n    bash: echo hi\n", "one.yaml"),
          dev.loopflow.core.run.RunOptions.builder().runId(RUN_ID).build());
      var record = store.findRun(RUN_ID).orElseThrow();
      SQLiteDataSource raw = new SQLiteDataSource();
      raw.setUrl("jdbc:sqlite:" + file);
      try (Connection c = raw.getConnection(); Statement st = c.createStatement()) {
        st.executeUpdate("DELETE FROM lf_runs");
      }

      LoopflowException gone = thrown(() -> store.updateRun(record));
      assertThat(gone.code()).isEqualTo(ErrorCode.STORE_UNAVAILABLE);

      try (Connection c = raw.getConnection(); Statement st = c.createStatement()) {
        st.executeUpdate("DROP TABLE lf_runs");
      }
      LoopflowException refused = thrown(() -> store.updateRun(record));
      assertThat(refused.code()).isEqualTo(ErrorCode.STORE_UNAVAILABLE);
    }
  }

  @Test
  void aReadOfAHealthyJournalStillWorks() {
    try (RunStore store = JdbcStores.open("sqlite:" + dir.resolve("journal.db"))) {
      Loopflow engine = Loopflow.builder().store(store).discover(false).build();
      engine.run(engine.parse("name: one\nnodes:\n  - id: a\n    bash: echo hi\n", "one.yaml"),
          dev.loopflow.core.run.RunOptions.builder().runId(RUN_ID).build());
      assertThat(store.listRuns()).hasSize(1);
      assertThat(store.nodeExecutions(RUN_ID)).isNotEmpty();
      assertThat(store.events(RUN_ID)).isNotEmpty();
    }
  }
}
