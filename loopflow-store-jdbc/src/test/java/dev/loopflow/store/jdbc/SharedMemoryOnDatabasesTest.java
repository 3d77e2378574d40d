package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.store.MemoryEntry;
import dev.loopflow.core.store.RunStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What the contract cannot set up: a PostgreSQL database with a linguistic collation, and damaged rows. */
class SharedMemoryOnDatabasesTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:15:30Z");

  @TempDir
  static Path dir;

  /** A collation that sorts "a" before "B" must not change the order keys are listed in. */
  @Test
  void keysAreListedInCodePointOrderWhateverTheDatabaseCollation_bugOrderFollowedTheCollation() throws Exception {
    String database = PostgresDatabases.create("memory_icu", "TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE "
        + "'en-US'");
    String url = PostgresDatabases.url(database);
    try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SELECT 'a' < 'B'")) {
      rs.next();
      assertThat(rs.getBoolean(1)).as("the database's own collation puts a before B").isTrue();
    }
    List<String> order = List.of("B", "Z", "a", "b", "é", "\uFFFF", "😀");
    try (RunStore store = JdbcStores.open(url)) {
      for (String k : order.reversed()) {
        store.putMemory(new MemoryEntry("s", "GLOBAL", k, new byte[] {1}, false, Map.of(), T0));
      }
      assertThat(store.listMemory("s", "GLOBAL", "")).extracting(MemoryEntry::key).containsExactlyElementsOf(order);
      assertThat(store.listMemory("s", "GLOBAL", "b")).extracting(MemoryEntry::key).containsExactly("b");
    } finally {
      PostgresDatabases.drop(database);
    }
  }

  static Stream<Arguments> damage() {
    return Stream.of(
        Arguments.of("lf_run_commands", "payload_json = 'not json'"),
        Arguments.of("lf_run_commands", "payload_json = '[1, 2]'"),
        Arguments.of("lf_run_commands", "created_at = 'yesterday'"),
        Arguments.of("lf_run_commands", "response_json = '{', responded_at = '2026-01-01T00:00:00Z'"),
        Arguments.of("lf_shared_memory", "metadata_json = '{\"a\": 1}'"),
        Arguments.of("lf_shared_memory", "metadata_json = 'x'"),
        Arguments.of("lf_shared_memory", "stored_at = ''"));
  }

  /** A row edited or damaged outside loopflow fails reads with the store's own error, never a driver exception. */
  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("damage")
  void aDamagedRowIsAStoreError(String table, String set) throws Exception {
    Path file = dir.resolve("damaged-" + Math.abs((table + set).hashCode()) + ".db");
    try (RunStore store = JdbcStores.open("sqlite:" + file)) {
      store.appendCommand("run_a", "restart", Map.of(), T0);
      store.putMemory(new MemoryEntry("s", "GLOBAL", "k", new byte[] {1}, false, Map.of(), T0));
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE " + table + " SET " + set);
    }
    try (RunStore store = JdbcStores.open("sqlite:" + file)) {
      LoopflowException e = catchThrowableOfType(LoopflowException.class, () -> {
        if (table.equals("lf_run_commands")) {
          store.commands("run_a");
        } else {
          store.listMemory("s", "GLOBAL", "");
        }
      });
      assertThat(e).isNotNull();
      assertThat(e.code()).isEqualTo(ErrorCode.STORE_UNAVAILABLE);
    }
  }
}
