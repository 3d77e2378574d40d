package dev.loopflow.store.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.loopflow.core.secrets.PrivateFiles;
import dev.loopflow.core.secrets.StoreUrls;
import dev.loopflow.core.store.RunStore;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * Opens durable run stores. The schema is created or upgraded by Flyway when a store opens (history table
 * {@code lf_schema_history}), so a store file written by an older version opens with a newer one; a new, empty SQLite
 * file gets the same schema and history without starting Flyway (see NewSqliteSchema).
 *
 * <p>Store URLs, as given to {@code --store} or {@code LOOPFLOW_STORE}:
 * <ul>
 *   <li>{@code memory}: an in-memory store (nothing survives the process);
 *   <li>{@code sqlite:PATH}, {@code jdbc:sqlite:PATH}, or a path ending in {@code .db}/{@code .sqlite}: SQLite in
 *       WAL mode, {@code synchronous=NORMAL} unless {@code ?synchronous=full} is appended;
 *   <li>{@code postgresql://user:password@host:port/db} (also {@code postgres://} and {@code jdbc:postgresql://}).
 * </ul>
 * Stores write what they are given: the engine masks credentials before anything reaches a store (see
 * {@link dev.loopflow.core.secrets.Redactor}). A SQLite file, its {@code -wal} and {@code -shm} files and any
 * directory created for them are readable by their owner only.
 */
public final class JdbcStores {
  /** The default store file under {@code LOOPFLOW_HOME}. */
  public static final String DEFAULT_FILE = "loopflow.db";

  private JdbcStores() {}

  /** The default SQLite file under {@code home}. */
  public static Path defaultFile(Path home) {
    return home.resolve(DEFAULT_FILE);
  }

  /** The most connections a PostgreSQL store opened by {@link #open(String)} keeps (opened when needed). */
  public static final int DEFAULT_CONNECTIONS = 8;
  /** The most connections a PostgreSQL store may be opened with. */
  public static final int MAX_CONNECTIONS = 256;

  /** Opens the store named by {@code url} (see the class comment). */
  public static RunStore open(String url) {
    return open(url, DEFAULT_CONNECTIONS);
  }

  /**
   * Opens the store named by {@code url} with at most {@code connections} connections to a PostgreSQL database (1 to
   * {@link #MAX_CONNECTIONS}; opened as they are needed). A process that executes many runs at once (a worker) needs
   * about one per run beside the store's own: with fewer, its runs wait for a connection to read their journal. A
   * SQLite store always has one.
   */
  public static RunStore open(String url, int connections) {
    if (connections < 1 || connections > MAX_CONNECTIONS) {
      throw new IllegalArgumentException("store connections must be 1 to " + MAX_CONNECTIONS + ", was "
          + connections);
    }
    if (url == null || url.isBlank()) {
      throw new IllegalArgumentException("store URL is empty");
    }
    String u = url.trim();
    String lower = u.toLowerCase(Locale.ROOT);
    if (lower.equals("memory")) {
      return RunStore.inMemory();
    }
    if (lower.startsWith("postgresql://") || lower.startsWith("postgres://") || lower.startsWith("jdbc:postgresql:")) {
      return postgresql(u, connections);
    }
    if (lower.startsWith("jdbc:sqlite:")) {
      return sqliteUrl(u.substring("jdbc:sqlite:".length()));
    }
    if (lower.startsWith("sqlite:")) {
      return sqliteUrl(u.substring("sqlite:".length()));
    }
    if (lower.endsWith(".db") || lower.endsWith(".sqlite") || lower.endsWith(".sqlite3")) {
      return sqlite(Path.of(u), false);
    }
    throw new IllegalArgumentException("unsupported store URL '" + StoreUrls.printable(u) + "': use memory, "
        + "sqlite:PATH or "
        + "postgresql://user:password@host:port/database");
  }

  private static RunStore sqliteUrl(String rest) {
    String path = rest;
    boolean full = false;
    int q = rest.indexOf('?');
    if (q >= 0) {
      path = rest.substring(0, q);
      for (Map.Entry<String, String> e : query(rest.substring(q + 1)).entrySet()) {
        if (e.getKey().equals("synchronous")) {
          String v = e.getValue().toLowerCase(Locale.ROOT);
          if (!v.equals("full") && !v.equals("normal")) {
            throw new IllegalArgumentException("sqlite store: synchronous must be full or normal, was '"
                + e.getValue() + "'");
          }
          full = v.equals("full");
        } else {
          throw new IllegalArgumentException("sqlite store: unknown parameter '" + e.getKey() + "'");
        }
      }
    }
    if (path.startsWith("//")) {
      path = path.substring(2);
    }
    if (path.isEmpty()) {
      throw new IllegalArgumentException("sqlite store URL has no file path");
    }
    return sqlite(Path.of(path), full);
  }

  /**
   * A SQLite store in WAL mode at {@code file}, created with its missing directories when needed: directories
   * {@code 0700}, the file {@code 0600}. SQLite gives the {@code -wal} and {@code -shm} files it creates the mode of
   * the database file, so they are {@code 0600} too.
   */
  public static RunStore sqlite(Path file, boolean synchronousFull) {
    Path abs = file.toAbsolutePath();
    try {
      if (abs.getParent() != null) {
        PrivateFiles.createDirectories(abs.getParent());
      }
      PrivateFiles.createFile(abs);
    } catch (IOException e) {
      // A FileSystemException's message is often only the path; the caller describes the cause (file and reason).
      throw StoreFailures.of("cannot create the store file " + abs, e);
    }
    SQLiteConfig cfg = new SQLiteConfig();
    cfg.setJournalMode(SQLiteConfig.JournalMode.WAL);
    cfg.setSynchronous(synchronousFull ? SQLiteConfig.SynchronousMode.FULL : SQLiteConfig.SynchronousMode.NORMAL);
    cfg.setBusyTimeout(60_000);
    cfg.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
    SQLiteDataSource raw = new SQLiteDataSource(cfg);
    raw.setUrl("jdbc:sqlite:" + abs);
    migrate(raw, "sqlite:" + abs);
    HikariConfig hc = new HikariConfig();
    hc.setDataSource(raw);
    // One connection: SQLite has one writer, and a single connection per process means writes from concurrent
    // runs queue in Java instead of failing with SQLITE_BUSY.
    hc.setMaximumPoolSize(1);
    hc.setMinimumIdle(1);
    hc.setPoolName("loopflow-sqlite");
    hc.setConnectionTimeout(120_000);
    // The commands watch reads PRAGMA data_version on a connection outside the pool (see SqliteCommandsWatch).
    // synchronous=FULL asks for every commit to survive a power cut: completions are then committed directly
    // instead of going through a completion log (see CompletionLog), which is only as durable as NORMAL.
    return new JdbcRunStore(new HikariDataSource(hc), JdbcRunStore.Dialect.SQLITE, new Codec(),
        "sqlite:" + abs, new SqliteCommandsWatch(raw), synchronousFull ? null : CompletionLog.directory(abs));
  }

  /**
   * How long the database keeps a session of a PostgreSQL store that sits inside a transaction without sending
   * anything. A process stopped mid-transaction (SIGSTOP, a VM or GC pause, a network partition) keeps the row locks
   * of that transaction for as long as it is stopped: the lease-epoch check's FOR SHARE lock on its run, the rows
   * it inserted. An engine taking the run over would wait on them without end, so the database ends such a session
   * and its locks with it; the stopped process's write then fails when it continues, and the store tells a lease
   * that moved meanwhile from a connection that merely broke (BatchTransaction). The store's own transactions send
   * their statements back to back, so a running process never comes near it. It is at most a run lease's length
   * minus its renewal period (15 s - 5 s), so the locks are gone before the stopped process's lease can expire and
   * another engine claim it.
   */
  static final Duration IDLE_IN_TRANSACTION = Duration.ofSeconds(10);

  /** A PostgreSQL store; the schema is created in the connection's default schema. */
  public static RunStore postgresql(String url) {
    return postgresql(url, DEFAULT_CONNECTIONS);
  }

  private static RunStore postgresql(String url, int connections) {
    Pg pg = Pg.parse(url);
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(pg.jdbcUrl);
    if (pg.user != null) {
      hc.setUsername(pg.user);
    }
    if (pg.password != null) {
      hc.setPassword(pg.password);
    }
    hc.setMaximumPoolSize(connections);
    hc.setMinimumIdle(0);
    hc.setPoolName("loopflow-postgresql");
    hc.setConnectionTimeout(30_000);
    hc.setConnectionInitSql("SET idle_in_transaction_session_timeout = '" + IDLE_IN_TRANSACTION.toMillis() + "ms'");
    // A transaction's buffered events (a few dozen per batch when many runs share it) go as multi-row INSERTs, a
    // statement for many rows instead of one per row: less work for the database and the driver on every batch.
    // Nothing here reads the per-row counts of a batch, which the driver then no longer reports.
    hc.addDataSourceProperty("reWriteBatchedInserts", "true");
    HikariDataSource ds;
    try {
      ds = new HikariDataSource(hc);
    } catch (RuntimeException e) {
      throw StoreFailures.of("cannot connect to the PostgreSQL store " + pg.display + ": "
          + StoreUrls.scrub(rootMessage(e), url), e);
    }
    try {
      migrate(ds, pg.display);
    } catch (RuntimeException e) {
      ds.close();
      throw e;
    }
    return new JdbcRunStore(ds, JdbcRunStore.Dialect.POSTGRESQL, new Codec(), pg.display,
        new PostgresCommandsWatch(app -> listenerConnection(pg, app), pg.display));
  }

  /**
   * The connection pool of a PostgreSQL store opened here, for the run queue that lives in the same database (see
   * {@code dev.loopflow.store.jdbc.workers}). Throws {@link IllegalArgumentException} for any other store: runs are
   * queued for other machines only through a database they all reach.
   */
  public static DataSource queueDataSource(RunStore store) {
    if (store instanceof JdbcRunStore j && j.dialect() == JdbcRunStore.Dialect.POSTGRESQL) {
      return j.dataSource();
    }
    throw new IllegalArgumentException("workers need a PostgreSQL store (--store postgresql://...), not " + store);
  }

  /**
   * Listens on a PostgreSQL store's database for notifications on {@code channel} (a lower-case SQL identifier),
   * with a connection of its own, until closed: {@code wake} runs once per batch of notifications and once each time
   * the listener (re)starts listening (what was notified while nobody listened is lost, so the caller looks for
   * itself then). Notifications are a shortcut, never the only way: callers keep polling, more slowly. Throws
   * {@link IllegalArgumentException} for any other store.
   */
  public static AutoCloseable listen(RunStore store, String channel, String name, Runnable wake) {
    if (store instanceof JdbcRunStore j && j.commandsWatch() instanceof PostgresCommandsWatch w) {
      return w.listener(channel, name, wake, wake).start();
    }
    throw new IllegalArgumentException("notifications need a PostgreSQL store (--store postgresql://...), not "
        + store);
  }

  /**
   * A listener's own connection: bounded connect and socket timeouts and TCP keep-alive, so that a
   * database that went away is noticed and the listener reconnects (see PostgresCommandsWatch).
   */
  private static Connection listenerConnection(Pg pg, String applicationName) throws SQLException {
    org.postgresql.ds.PGSimpleDataSource source = new org.postgresql.ds.PGSimpleDataSource();
    source.setURL(pg.jdbcUrl);
    if (pg.user != null) {
      source.setUser(pg.user);
    }
    if (pg.password != null) {
      source.setPassword(pg.password);
    }
    source.setConnectTimeout(10);
    source.setSocketTimeout(30);
    source.setTcpKeepAlive(true);
    source.setApplicationName(applicationName);
    return source.getConnection();
  }

  /**
   * The newest migration under db/loopflow; a store whose history already records it successfully is opened without
   * starting Flyway, which costs a few hundred milliseconds of a CLI command's start-up. JdbcStoresTest checks this
   * constant against the migration files, so a new migration cannot be skipped.
   */
  static final String LATEST_MIGRATION = "5";

  static boolean current(DataSource ds) {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM lf_schema_history WHERE \"version\" = '"
            + LATEST_MIGRATION + "' AND \"success\" = " + (c.getMetaData().getURL().startsWith("jdbc:sqlite:")
            ? "1" : "TRUE"))) {
      return rs.next() && rs.getInt(1) == 1;
    } catch (SQLException e) {
      return false; // no history table yet, or one we cannot read: Flyway decides
    }
  }

  private static void migrate(DataSource ds, String display) {
    if (current(ds) || createdWithoutFlyway(ds, display)) {
      return;
    }
    try {
      Flyway.configure(JdbcStores.class.getClassLoader()).dataSource(ds).locations("classpath:db/loopflow")
          .table("lf_schema_history").loggers("slf4j").load().migrate();
    } catch (RuntimeException e) {
      throw StoreFailures.of("cannot prepare the run store " + display + ": " + rootMessage(e), e);
    }
  }

  /** A new SQLite store gets the schema Flyway would make, without starting Flyway (see NewSqliteSchema). */
  private static boolean createdWithoutFlyway(DataSource ds, String display) {
    if (!(ds instanceof SQLiteDataSource)) {
      return false;
    }
    try {
      return NewSqliteSchema.createIfEmpty(ds);
    } catch (SQLException | RuntimeException e) {
      throw StoreFailures.of("cannot prepare the run store " + display + ": " + rootMessage(e), e);
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }

  private static Map<String, String> query(String q) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String part : q.split("&")) {
      if (part.isEmpty()) {
        continue;
      }
      int eq = part.indexOf('=');
      String k = eq < 0 ? part : part.substring(0, eq);
      String v = eq < 0 ? "" : part.substring(eq + 1);
      out.put(URLDecoder.decode(k, StandardCharsets.UTF_8), URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
    return out;
  }

  /** A PostgreSQL URL split into what pgjdbc takes; {@code display} never shows the password. */
  record Pg(String jdbcUrl, String user, String password, String display) {
    static Pg parse(String url) {
      String u = url.trim();
      if (u.startsWith("jdbc:")) {
        u = u.substring(5);
      }
      refuseUnencodedUserInfo(u);
      URI uri;
      try {
        uri = new URI(u.replaceFirst("^postgres(ql)?://", "postgresql://"));
      } catch (URISyntaxException e) {
        // The parser's own message quotes the whole URL, password included: only its reason and position.
        throw new IllegalArgumentException("malformed PostgreSQL store URL " + StoreUrls.printable(url.trim())
            + ": " + e.getReason() + " at index " + e.getIndex());
      }
      String host = uri.getHost() == null ? "localhost" : uri.getHost();
      int port = uri.getPort() < 0 ? 5432 : uri.getPort();
      String db = uri.getPath() == null || uri.getPath().length() <= 1 ? "postgres" : uri.getPath().substring(1);
      String user = null;
      String password = null;
      if (uri.getRawUserInfo() != null) {
        String[] ui = uri.getRawUserInfo().split(":", 2);
        user = URLDecoder.decode(ui[0], StandardCharsets.UTF_8);
        password = ui.length > 1 ? URLDecoder.decode(ui[1], StandardCharsets.UTF_8) : null;
      }
      StringBuilder params = new StringBuilder();
      if (uri.getRawQuery() != null) {
        for (Map.Entry<String, String> e : query(uri.getRawQuery()).entrySet()) {
          if (e.getKey().equals("user")) {
            user = e.getValue();
          } else if (e.getKey().equals("password")) {
            password = e.getValue();
          } else {
            params.append(params.isEmpty() ? "?" : "&").append(e.getKey()).append('=').append(e.getValue());
          }
        }
      }
      String jdbc = "jdbc:postgresql://" + host + ":" + port + "/" + db + params;
      String display = "postgresql://" + (user == null ? "" : user + "@") + host + ":" + port + "/" + db;
      return new Pg(jdbc, user, password, display);
    }

    /**
     * A password holding '/', '?', '#' or a space unencoded would be split where a URL parser splits (its end taken
     * for the host, path or query, and then printed as such): such a URL is refused, without quoting it. User
     * information ends at the last '@'; it holds a password when a ':' in it is followed by something other than a
     * port number.
     */
    private static void refuseUnencodedUserInfo(String url) {
      int scheme = url.indexOf("://");
      String rest = scheme < 0 ? url : url.substring(scheme + 3);
      int at = rest.lastIndexOf('@');
      if (at < 0) {
        return;
      }
      String userInfo = rest.substring(0, at);
      int colon = userInfo.indexOf(':');
      if (colon < 0) {
        return;
      }
      int cut = colon + 1;
      while (cut < userInfo.length() && "/?# ".indexOf(userInfo.charAt(cut)) < 0) {
        cut++;
      }
      if (cut == userInfo.length()) {
        return;
      }
      String beforeCut = userInfo.substring(colon + 1, cut);
      if (!beforeCut.isEmpty() && beforeCut.chars().allMatch(Character::isDigit)) {
        return; // host:port, and the '@' belongs to the path or query
      }
      throw new IllegalArgumentException("malformed PostgreSQL store URL " + StoreUrls.printable(url) + ": the user "
          + "name and password must be percent-encoded ('/' as %2F, '?' as %3F, '#' as %23, '@' as %40, a space "
          + "as %20)");
    }
  }
}
