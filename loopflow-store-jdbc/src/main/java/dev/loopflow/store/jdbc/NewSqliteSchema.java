package dev.loopflow.store.jdbc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import javax.sql.DataSource;

/*
 * Design notes.
 *
 * A new SQLite store (a database with no tables at all) gets its schema here, without Flyway: starting Flyway costs
 * a CLI command about half of its start-up on a new store (its configuration, plugin register and class-path scan,
 * several hundred classes). The result must be exactly what Flyway would have made, so that a later loopflow that
 * adds a migration runs Flyway on the store as on any other:
 *  - the migrations' statements run in file order, with the text Flyway would send (statements split at semicolons
 *    outside comments, quotes and identifiers, each without its leading comments);
 *  - lf_schema_history is created with the statements Flyway's SQLite support uses, and gets one row per migration
 *    with the values Flyway writes: rank, version, description from the file name, type SQL, script, Flyway's
 *    checksum (CRC-32 of the file's lines without line breaks), installed_by empty (SQLite has no user), execution
 *    time in ms, success 1. NewSqliteSchemaTest compares the result with a store Flyway made, and lets Flyway
 *    validate and migrate one further.
 * Everything happens in one IMMEDIATE transaction that first checks the database is still empty: two processes
 * creating the same store at once serialise on SQLite's write lock, and the second finds tables and leaves the store
 * to Flyway, which then sees every migration applied. A database that is not empty (another program's file, a store
 * that an older version left half migrated) always goes to Flyway, as before.
 */
final class NewSqliteSchema {
  /**
   * The migrations under db/loopflow, oldest first; NewSqliteSchemaTest checks this list against the files and
   * against {@link JdbcStores#LATEST_MIGRATION}.
   */
  static final List<String> MIGRATIONS = List.of("V1__journal.sql", "V2__run_options_waiting_cancel_reason.sql",
      "V3__values.sql", "V4__run_commands_shared_memory.sql", "V5__lease_epoch_run_queue.sql");

  /** Flyway's history table on SQLite, as its SQLite support creates it (the text SQLite keeps in sqlite_master). */
  private static final String HISTORY_TABLE = """
      CREATE TABLE "lf_schema_history" (
          "installed_rank" INT NOT NULL PRIMARY KEY,
          "version" VARCHAR(50),
          "description" VARCHAR(200) NOT NULL,
          "type" VARCHAR(20) NOT NULL,
          "script" VARCHAR(1000) NOT NULL,
          "checksum" INT,
          "installed_by" VARCHAR(100) NOT NULL,
          "installed_on" TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f','now')),
          "execution_time" INT NOT NULL,
          "success" BOOLEAN NOT NULL
      )""";
  private static final String HISTORY_INDEX =
      "CREATE INDEX \"lf_schema_history_s_idx\" ON \"lf_schema_history\" (\"success\")";
  private static final String HISTORY_ROW = "INSERT INTO \"lf_schema_history\" (\"installed_rank\", \"version\", "
      + "\"description\", \"type\", \"script\", \"checksum\", \"installed_by\", \"execution_time\", \"success\") "
      + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";

  private NewSqliteSchema() {}

  /**
   * Creates the schema when the database of {@code ds} has no tables; returns false, having changed nothing, when it
   * has some (the caller then runs Flyway).
   */
  static boolean createIfEmpty(DataSource ds) throws SQLException {
    List<String> scripts = new ArrayList<>(MIGRATIONS.size());
    for (String name : MIGRATIONS) {
      scripts.add(read(name));
    }
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      boolean done = false;
      try {
        if (!empty(c)) {
          return false;
        }
        try (Statement st = c.createStatement()) {
          st.executeUpdate(HISTORY_TABLE);
          st.executeUpdate(HISTORY_INDEX);
        }
        try (PreparedStatement row = c.prepareStatement(HISTORY_ROW); Statement st = c.createStatement()) {
          for (int i = 0; i < MIGRATIONS.size(); i++) {
            String name = MIGRATIONS.get(i);
            long start = System.nanoTime();
            for (String sql : statements(scripts.get(i))) {
              st.executeUpdate(sql);
            }
            int version = version(name);
            row.setInt(1, i + 1);
            row.setString(2, String.valueOf(version));
            row.setString(3, description(name));
            row.setString(4, "SQL");
            row.setString(5, name);
            row.setInt(6, checksum(scripts.get(i)));
            row.setString(7, "");
            row.setInt(8, (int) ((System.nanoTime() - start) / 1_000_000));
            row.setBoolean(9, true);
            row.executeUpdate();
          }
        }
        c.commit();
        done = true;
        return true;
      } finally {
        if (!done) {
          c.rollback();
        }
        c.setAutoCommit(true);
      }
    }
  }

  private static boolean empty(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM sqlite_master")) {
      return rs.next() && rs.getInt(1) == 0;
    }
  }

  static String read(String name) {
    try (InputStream in = NewSqliteSchema.class.getResourceAsStream("/db/loopflow/" + name)) {
      if (in == null) {
        throw new IllegalStateException("migration " + name + " is missing from the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code V12__add_things.sql} is version 12. */
  static int version(String name) {
    return Integer.parseInt(name.substring(1, name.indexOf("__")));
  }

  /** Flyway's description: the name between {@code __} and {@code .sql}, underscores as spaces. */
  static String description(String name) {
    return name.substring(name.indexOf("__") + 2, name.length() - ".sql".length()).replace('_', ' ');
  }

  /**
   * Flyway's checksum of a SQL migration: CRC-32 over the UTF-8 bytes of each line without its line break (so it does
   * not depend on line endings), a byte-order mark at the start left out.
   */
  static int checksum(String script) {
    CRC32 crc = new CRC32();
    String text = script.startsWith("\uFEFF") ? script.substring(1) : script;
    try (BufferedReader lines = new BufferedReader(new StringReader(text))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        crc.update(line.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return (int) crc.getValue();
  }

  /**
   * The statements of a script: split at semicolons that are not inside a {@code --} or block comment, a quoted
   * string or a quoted identifier; each without leading whitespace and comments; empty ones left out.
   */
  static List<String> statements(String script) {
    List<String> out = new ArrayList<>();
    int n = script.length();
    int start = 0;
    int i = 0;
    while (i < n) {
      char ch = script.charAt(i);
      if (ch == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
        int eol = script.indexOf('\n', i);
        i = eol < 0 ? n : eol + 1;
      } else if (ch == '/' && i + 1 < n && script.charAt(i + 1) == '*') {
        int end = script.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else if (ch == '\'' || ch == '"') {
        // A doubled quote inside is an escaped one: the loop leaves and re-enters the quoted part.
        int end = script.indexOf(ch, i + 1);
        i = end < 0 ? n : end + 1;
      } else if (ch == ';') {
        add(out, script.substring(start, i));
        start = ++i;
      } else {
        i++;
      }
    }
    add(out, script.substring(start));
    return out;
  }

  private static void add(List<String> out, String statement) {
    String s = stripLeadingComments(statement);
    if (!s.isEmpty()) {
      out.add(s);
    }
  }

  private static String stripLeadingComments(String s) {
    int i = 0;
    int n = s.length();
    while (i < n) {
      if (Character.isWhitespace(s.charAt(i))) {
        i++;
      } else if (s.startsWith("--", i)) {
        int eol = s.indexOf('\n', i);
        i = eol < 0 ? n : eol + 1;
      } else if (s.startsWith("/*", i)) {
        int end = s.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else {
        break;
      }
    }
    return s.substring(i).strip();
  }
}
