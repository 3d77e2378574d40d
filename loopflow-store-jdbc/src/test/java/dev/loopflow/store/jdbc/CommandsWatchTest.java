package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.store.RunCommand;
import dev.loopflow.core.store.RunStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a store notices commands appended by other processes: on PostgreSQL by a notification (told apart from the
 * fallbacks by the listener's counters), after its listening connection was cut, and with polling while it cannot
 * listen; on SQLite by the data version, at once.
 */
class CommandsWatchTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:15:30Z");
  private static final Duration LIMIT = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  private String database;

  @AfterEach
  void dropDatabase() throws SQLException {
    if (database != null) {
      PostgresDatabases.drop(database);
    }
  }

  private String postgresDatabase() throws SQLException {
    database = PostgresDatabases.create("watch", "");
    return PostgresDatabases.url(database);
  }

  private static PostgresCommandsWatch watch(RunStore store) {
    return (PostgresCommandsWatch) ((JdbcRunStore) store).commandsWatch();
  }

  /** The store's listener, started (by a first read of the version) and listening. */
  private static PostgresCommandsWatch listening(RunStore store) throws InterruptedException {
    PostgresCommandsWatch watch = watch(store);
    store.commandsVersion();
    await(() -> watch.listens() >= 1, "the listener did not start listening");
    return watch;
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long end = System.nanoTime() + LIMIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError(what + " within " + LIMIT);
      }
      Thread.sleep(10);
    }
  }

  private static int listeners(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url); PreparedStatement ps = c.prepareStatement(
        "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = ?")) {
      ps.setString(1, "loopflow commands listener");
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  @Test
  void aPostgresStoreIsNotifiedOfAnotherStoresAppend() throws Exception {
    String url = postgresDatabase();
    try (RunStore engine = JdbcStores.open(url); RunStore cli = JdbcStores.open(url)) {
      PostgresCommandsWatch watch = listening(engine);
      for (int round = 0; round < 3; round++) {
        long notified = watch.notifications();
        long version = engine.commandsVersion();
        RunCommand c = cli.appendCommand("run_a", "restart", Map.of("round", round), T0);
        await(() -> watch.notifications() > notified, "no notification arrived");
        assertThat(engine.commandsVersion()).isNotEqualTo(version);
        assertThat(engine.pendingCommands("run_a")).contains(c);
      }
    }
  }

  @Test
  void theListenerComesBackAfterItsConnectionIsCut() throws Exception {
    String url = postgresDatabase();
    try (RunStore engine = JdbcStores.open(url); RunStore cli = JdbcStores.open(url)) {
      PostgresCommandsWatch watch = listening(engine);
      int pid = watch.backendPid();
      long version = engine.commandsVersion();
      try (Connection c = DriverManager.getConnection(url);
          PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
        ps.setInt(1, pid);
        ps.execute();
      }
      await(() -> watch.listens() >= 2, "the listener did not listen again");
      assertThat(watch.backendPid()).isNotEqualTo(pid);
      assertThat(engine.commandsVersion()).as("commands appended while it was cut off are not missed")
          .isNotEqualTo(version);
      long notified = watch.notifications();
      cli.appendCommand("run_b", "restart", Map.of(), T0);
      await(() -> watch.notifications() > notified, "no notification arrived after reconnecting");
    }
  }

  @Test
  void whileNoListenerCanConnectEveryReadReportsAChange() {
    PostgresCommandsWatch watch = new PostgresCommandsWatch(app -> {
      throw new SQLException("refused");
    }, "unreachable");
    try {
      long first = watch.version();
      long second = watch.version();
      long third = watch.version();
      assertThat(second).isNotEqualTo(first);
      assertThat(third).isNotEqualTo(second).isNotEqualTo(first);
      assertThat(watch.listens()).isZero();
    } finally {
      watch.close();
    }
  }

  @Test
  void closingStoresEndsTheirListeners() throws Exception {
    String url = postgresDatabase();
    RunStore a = JdbcStores.open(url);
    RunStore b = JdbcStores.open(url);
    RunStore idle = JdbcStores.open(url);
    listening(a);
    listening(b);
    assertThat(listeners(url)).as("a store that never read the version has no listener").isEqualTo(2);
    idle.close();
    a.close();
    b.close();
    await(() -> {
      try {
        return listeners(url) == 0;
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }, "a listener connection stayed open after close");
  }

  @Test
  void aSqliteStoreSeesAnotherStoresAppendAtOnce() {
    String url = "sqlite:" + dir.resolve("runs.db");
    try (RunStore engine = JdbcStores.open(url); RunStore cli = JdbcStores.open(url)) {
      for (int round = 0; round < 5; round++) {
        long version = engine.commandsVersion();
        assertThat(engine.commandsVersion()).as("nothing happened").isEqualTo(version);
        cli.appendCommand("run_a", "restart", Map.of("round", round), T0);
        assertThat(engine.commandsVersion()).isNotEqualTo(version);
      }
      assertThat(engine.pendingCommands("run_a")).hasSize(5);
    }
  }
}
