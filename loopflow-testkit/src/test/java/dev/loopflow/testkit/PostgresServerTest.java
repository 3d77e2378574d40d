package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PostgresServerTest {

  private static final FileAttribute<?> EXECUTABLE =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x"));

  private static PostgresServer server;

  @BeforeAll
  static void startServer() {
    server = PostgresServer.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Test
  void urlsPointAtTheDefaultDatabaseAsLoopflowOnLoopback() {
    assertThat(server.port()).isPositive();
    assertThat(server.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + server.port() + "/postgres?user=loopflow");
    assertThat(server.url()).isEqualTo("postgresql://loopflow@127.0.0.1:" + server.port() + "/postgres");
    assertThat(server.jdbcUrl("other"))
        .isEqualTo("jdbc:postgresql://127.0.0.1:" + server.port() + "/other?user=loopflow");
  }

  @Test
  void answersQueriesAndKeepsWrittenRows() throws SQLException {
    try (Connection c = DriverManager.getConnection(server.jdbcUrl()); Statement s = c.createStatement()) {
      assertThat(single(s, "select 1")).isEqualTo("1");

      s.execute("create table items (id int primary key, name text not null)");
      assertThat(s.executeUpdate("insert into items values (1, 'one'), (2, 'two')")).isEqualTo(2);

      assertThat(column(s, "select name from items order by id")).containsExactly("one", "two");
      assertThat(single(s, "select current_user")).isEqualTo("loopflow");
      assertThat(single(s, "show server_encoding")).isEqualTo("UTF8");
    }
  }

  @Test
  void createdDatabaseIsReachableAndSeparateFromTheDefaultOne() throws SQLException {
    String url = server.createDatabase("second");

    assertThat(url).isEqualTo(server.jdbcUrl("second"));
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      assertThat(single(s, "select current_database()")).isEqualTo("second");
      s.execute("create table only_in_second (id int)");
    }
    try (Connection c = DriverManager.getConnection(server.jdbcUrl()); Statement s = c.createStatement()) {
      assertThat(single(s, "select count(*) from pg_tables where tablename = 'only_in_second'")).isEqualTo("0");
    }
  }

  @Test
  void creatingAnExistingDatabaseFailsWithTheToolsOutput() {
    server.createDatabase("twice");

    assertThatThrownBy(() -> server.createDatabase("twice"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("createdb")
        .hasMessageContaining("exit code 1")
        .hasMessageContaining("already exists");
  }

  @Test
  void rejectsDatabaseNamesThatWouldNeedQuotingInAUrl() {
    assertThatThrownBy(() -> server.createDatabase("two words")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> server.jdbcUrl("a/b")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void closeStopsTheServerSoItsPortRefusesConnections() throws Exception {
    PostgresServer own = PostgresServer.start();
    int port = own.port();
    try (Connection c = DriverManager.getConnection(own.jdbcUrl())) {
      assertThat(c.isValid(5)).isTrue();
    }

    own.close();

    assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
    assertThatThrownBy(() -> DriverManager.getConnection(own.jdbcUrl())).isInstanceOf(SQLException.class);
    own.close();
    assertThatThrownBy(() -> own.createDatabase("late")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void sharedServerIsStartedOnceAndOutlivesClose() throws SQLException {
    PostgresServer shared = PostgresServer.shared();

    shared.close();

    assertThat(PostgresServer.shared()).isSameAs(shared);
    try (Connection c = DriverManager.getConnection(shared.jdbcUrl()); Statement s = c.createStatement()) {
      assertThat(single(s, "select 1")).isEqualTo("1");
    }
  }

  @Test
  void externalServerReportsItsUrlAndCannotCreateDatabases() {
    PostgresServer external = PostgresServer.external("jdbc:postgresql://db.example:6543/app?user=ci&ssl=false");

    assertThat(external.port()).isEqualTo(6543);
    assertThat(external.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example:6543/app?user=ci&ssl=false");
    assertThat(external.jdbcUrl("other")).isEqualTo("jdbc:postgresql://db.example:6543/other?user=ci&ssl=false");
    assertThat(external.url()).isEqualTo("postgresql://db.example:6543/app?user=ci&ssl=false");
    assertThatThrownBy(() -> external.createDatabase("x"))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("LOOPFLOW_TEST_PG_URL");
    external.close();
    assertThat(PostgresServer.external("jdbc:postgresql://localhost/app").port()).isEqualTo(5432);
  }

  @Test
  void externalUrlMustBeAPostgresJdbcUrl() {
    assertThatThrownBy(() -> PostgresServer.external("postgresql://localhost/app"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc:postgresql://");
  }

  @Test
  void picksTheHighestInstalledVersionWithAllServerBinaries(@TempDir Path installRoot) throws IOException {
    fakeInstall(installRoot.resolve("9.6"), "initdb", "pg_ctl", "postgres");
    fakeInstall(installRoot.resolve("15"), "initdb", "pg_ctl", "postgres");
    fakeInstall(installRoot.resolve("17"), "pg_ctl");

    assertThat(PostgresServer.locateBinaries(null, installRoot)).isEqualTo(installRoot.resolve("15/bin"));
    assertThat(PostgresServer.locateBinaries(installRoot.resolve("9.6/bin").toString(), installRoot))
        .isEqualTo(installRoot.resolve("9.6/bin"));
  }

  @Test
  void missingBinariesAreReportedWithHowToInstallThem(@TempDir Path installRoot) {
    assertThatThrownBy(() -> PostgresServer.locateBinaries(null, installRoot.resolve("absent")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("PostgreSQL server binaries")
        .hasMessageContaining("were not found")
        .hasMessageContaining("apt-get install -y postgresql");
    assertThatThrownBy(() -> PostgresServer.locateBinaries(installRoot.toString(), installRoot))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("LOOPFLOW_PG_BIN")
        .hasMessageContaining("apt-get install -y postgresql");
  }

  private static void fakeInstall(Path version, String... binaries) throws IOException {
    Path bin = Files.createDirectories(version.resolve("bin"));
    for (String name : binaries) {
      Files.createFile(bin.resolve(name), EXECUTABLE);
    }
  }

  private static String single(Statement s, String sql) throws SQLException {
    List<String> values = column(s, sql);
    assertThat(values).hasSize(1);
    return values.getFirst();
  }

  private static List<String> column(Statement s, String sql) throws SQLException {
    List<String> values = new ArrayList<>();
    try (ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    }
    return values;
  }
}
