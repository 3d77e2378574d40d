package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.store.RunStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sqlite.SQLiteDataSource;

class NewSqliteSchemaTest {
  @TempDir Path dir;

  @Test
  void theMigrationListIsEveryFileUnderDbLoopflowInVersionOrder() throws Exception {
    Path migrations = Path.of(JdbcStores.class.getClassLoader().getResource("db/loopflow").toURI());
    List<String> files;
    try (Stream<Path> list = Files.list(migrations)) {
      files = list.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sql"))
          .sorted(java.util.Comparator.comparingInt(NewSqliteSchema::version)).toList();
    }
    assertThat(NewSqliteSchema.MIGRATIONS).isEqualTo(files);
    assertThat(String.valueOf(NewSqliteSchema.version(files.get(files.size() - 1))))
        .isEqualTo(JdbcStores.LATEST_MIGRATION);
  }

  @Test
  void aNewStoreGetsTheSchemaAndHistoryFlywayWouldMake() throws Exception {
    Path ours = dir.resolve("ours.db");
    try (RunStore store = JdbcStores.open("sqlite:" + ours)) {
      assertThat(store.listRuns()).isEmpty();
    }
    Path flyways = dir.resolve("flyway.db");
    flyway(flyways).migrate();

    assertThat(schema(ours)).isEqualTo(schema(flyways)).isNotEmpty();
    assertThat(history(ours)).isEqualTo(history(flyways)).hasSize(NewSqliteSchema.MIGRATIONS.size());
  }

  @Test
  void ourChecksumsAreFlywaysForEveryMigration() {
    Path file = dir.resolve("info.db");
    for (MigrationInfo m : flyway(file).info().all()) {
      String script = m.getScript();
      assertThat(NewSqliteSchema.checksum(NewSqliteSchema.read(script))).as(script).isEqualTo(m.getChecksum());
      assertThat(NewSqliteSchema.description(script)).as(script).isEqualTo(m.getDescription());
    }
  }

  @Test
  void flywayValidatesAStoreMadeWithoutItAndMigratesItFurther() throws Exception {
    Path file = dir.resolve("journal.db");
    JdbcStores.open("sqlite:" + file).close();
    Flyway plain = flyway(file);
    plain.validate();
    assertThat(plain.migrate().migrationsExecuted).isZero();

    Path more = Files.createDirectories(dir.resolve("more"));
    Files.writeString(more.resolve("V" + (NewSqliteSchema.MIGRATIONS.size() + 1) + "__later_column.sql"),
        "ALTER TABLE lf_runs ADD COLUMN later TEXT;\n");
    MigrateResult later = Flyway.configure(JdbcStores.class.getClassLoader()).dataSource(source(file))
        .locations("classpath:db/loopflow", "filesystem:" + more).table("lf_schema_history").load().migrate();
    assertThat(later.migrationsExecuted).isEqualTo(1);
    assertThat(history(file)).hasSize(NewSqliteSchema.MIGRATIONS.size() + 1);
  }

  @Test
  void aStoreFlywayLeftHalfMigratedIsFinishedByFlyway() throws Exception {
    Path file = dir.resolve("half.db");
    Flyway.configure(JdbcStores.class.getClassLoader()).dataSource(source(file)).locations("classpath:db/loopflow")
        .table("lf_schema_history").target("2").load().migrate();
    JdbcStores.open("sqlite:" + file).close();
    Path flyways = dir.resolve("flyway.db");
    flyway(flyways).migrate();
    assertThat(schema(file)).isEqualTo(schema(flyways));
    assertThat(history(file)).isEqualTo(history(flyways));
  }

  @Test
  void aDatabaseOfAnotherProgramIsLeftToFlywayWhichRefusesIt() throws Exception {
    Path file = dir.resolve("other.db");
    try (Connection c = source(file).getConnection(); Statement st = c.createStatement()) {
      st.executeUpdate("CREATE TABLE notes (body TEXT)");
    }
    assertThatThrownBy(() -> JdbcStores.open("sqlite:" + file)).isInstanceOf(LoopflowException.class)
        .extracting(e -> ((LoopflowException) e).code()).isEqualTo(ErrorCode.STORE_UNAVAILABLE);
    assertThat(schema(file)).extracting(row -> row.get(1)).containsExactly("notes");
  }

  @Test
  void twoProcessesCreatingTheSameStoreAtOnceGetOneSchema() throws Exception {
    Path file = dir.resolve("raced.db");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Void>> opens = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        opens.add(pool.submit((Callable<Void>) () -> {
          JdbcStores.open("sqlite:" + file).close();
          return null;
        }));
      }
      for (Future<Void> f : opens) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    Path flyways = dir.resolve("flyway.db");
    flyway(flyways).migrate();
    assertThat(schema(file)).isEqualTo(schema(flyways));
    assertThat(history(file)).isEqualTo(history(flyways));
  }

  static Stream<Arguments> scripts() {
    return Stream.of(
        Arguments.of("CREATE TABLE a (x TEXT);", List.of("CREATE TABLE a (x TEXT)")),
        Arguments.of("-- lead; with a semicolon\nCREATE TABLE a (x TEXT);\n-- trailing; comment\n",
            List.of("CREATE TABLE a (x TEXT)")),
        Arguments.of("INSERT INTO a VALUES ('x;y');INSERT INTO a VALUES ('it''s; fine');",
            List.of("INSERT INTO a VALUES ('x;y')", "INSERT INTO a VALUES ('it''s; fine')")),
        Arguments.of("CREATE TABLE \"odd;name\" (x TEXT);", List.of("CREATE TABLE \"odd;name\" (x TEXT)")),
        Arguments.of("/* block; comment */ CREATE TABLE a (x TEXT); /* after; */",
            List.of("CREATE TABLE a (x TEXT)")),
        Arguments.of("CREATE TABLE a (\n  x TEXT -- inline; note\n);", List.of("CREATE TABLE a (\n  x TEXT -- inline; note\n)")),
        Arguments.of(";;  ;\n", List.of()),
        Arguments.of("SELECT 1", List.of("SELECT 1")),
        Arguments.of("SELECT '-- not a comment; really'; SELECT 2;",
            List.of("SELECT '-- not a comment; really'", "SELECT 2")),
        Arguments.of("SELECT 'unterminated; quote", List.of("SELECT 'unterminated; quote")));
  }

  @ParameterizedTest
  @MethodSource("scripts")
  void statementsSplitOnlyAtSemicolonsOutsideCommentsAndQuotes(String script, List<String> expected) {
    assertThat(NewSqliteSchema.statements(script)).isEqualTo(expected);
  }

  @Test
  void checksumsIgnoreLineEndingsAndAByteOrderMarkLikeFlyways() {
    int lf = NewSqliteSchema.checksum("a\nb\n");
    assertThat(NewSqliteSchema.checksum("a\r\nb\r\n")).isEqualTo(lf);
    assertThat(NewSqliteSchema.checksum("\uFEFFa\nb")).isEqualTo(lf);
    assertThat(NewSqliteSchema.checksum("a\nc\n")).isNotEqualTo(lf);
  }

  private static Flyway flyway(Path file) {
    return Flyway.configure(JdbcStores.class.getClassLoader()).dataSource(source(file))
        .locations("classpath:db/loopflow").table("lf_schema_history").load();
  }

  private static SQLiteDataSource source(Path file) {
    SQLiteDataSource ds = new SQLiteDataSource();
    ds.setUrl("jdbc:sqlite:" + file);
    return ds;
  }

  /** Every object SQLite keeps for the database, with the statement text it keeps. */
  private static List<List<Object>> schema(Path file) throws SQLException {
    return rows(file, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name");
  }

  /** The history rows without the columns that depend on when and how fast they were written. */
  private static List<List<Object>> history(Path file) throws SQLException {
    return rows(file, "SELECT installed_rank, version, description, type, script, checksum, installed_by, success, "
        + "typeof(installed_rank), typeof(version), typeof(checksum), typeof(installed_by), typeof(installed_on), "
        + "typeof(execution_time), typeof(success) FROM lf_schema_history ORDER BY installed_rank");
  }

  private static List<List<Object>> rows(Path file, String sql) throws SQLException {
    List<List<Object>> out = new ArrayList<>();
    try (Connection c = source(file).getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      ResultSetMetaData md = rs.getMetaData();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          row.add(rs.getObject(i));
        }
        out.add(row);
      }
    }
    return out;
  }
}
