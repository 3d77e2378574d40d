package dev.loopflow.store.jdbc;

import dev.loopflow.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Throwaway databases on the shared test server, created and dropped over SQL. Tests that need an empty database
 * each (the store contract has a few hundred cases) drop it afterwards: every database is about a thousand files,
 * and the server's directory is deleted when the test JVM exits.
 */
final class PostgresDatabases {
  private static final AtomicInteger COUNT = new AtomicInteger();

  private PostgresDatabases() {}

  /** A new empty database named {@code prefix_N}; {@code options} are appended to CREATE DATABASE. */
  static String create(String prefix, String options) throws SQLException {
    String name = prefix + "_" + COUNT.incrementAndGet();
    admin("CREATE DATABASE " + name + (options.isEmpty() ? "" : " " + options));
    return name;
  }

  static String url(String name) {
    return PostgresServer.shared().jdbcUrl(name);
  }

  /** Drops the database, cutting off any connection still open to it. */
  static void drop(String name) throws SQLException {
    admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  }

  private static void admin(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(PostgresServer.shared().jdbcUrl());
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
