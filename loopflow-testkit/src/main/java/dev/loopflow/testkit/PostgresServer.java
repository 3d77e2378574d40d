package dev.loopflow.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL cluster for tests, run from the server binaries of Debian's {@code postgresql} package.
 *
 * <p>Code that talks to PostgreSQL over JDBC has to be tested against a real server: an embedded or mocked
 * database does not show PostgreSQL's locking, types or error codes. This class gives each test (or, through
 * {@link #shared()}, each test JVM) a private cluster in a temporary directory, listening only on
 * {@code 127.0.0.1} on a free port, with trust authentication for the superuser {@code loopflow} and durability
 * switched off for speed. No container runtime is needed, only {@code apt-get install -y postgresql}.
 *
 * <p>What must stay true:
 * <ul>
 *   <li>The main code does not depend on a JDBC driver; test suites bring their own. Anything done to the server
 *       goes through the PostgreSQL command-line tools ({@code initdb}, {@code pg_ctl}, {@code createdb}).
 *   <li>Every started cluster is stopped and its directory deleted, by {@link #close()} or, if the JVM exits
 *       first, by a shutdown hook; a test run must not leave a {@code postgres} process behind.
 *   <li>PostgreSQL refuses to run as root. As root, every tool runs as the {@code postgres} system user through
 *       {@code runuser}, and the temporary directory (under {@code java.io.tmpdir}, whose parents that user must
 *       be able to traverse) is owned by it.
 *   <li>Every command is bounded by a timeout, and a failure reports the command, its exit code and its output
 *       (plus the end of the server log when the server does not start), so a broken setup is diagnosable from
 *       the test report alone.
 * </ul>
 *
 * <p>If {@code LOOPFLOW_TEST_PG_URL} holds a {@code jdbc:postgresql:} URL, {@link #shared()} reports that server
 * instead of starting one; such a server cannot create databases and is never stopped from here.
 */
public final class PostgresServer implements AutoCloseable {

  static final Path INSTALL_ROOT = Path.of("/usr/lib/postgresql");
  static final String INSTALL_HINT = "install Debian's PostgreSQL server package with `apt-get install -y postgresql`"
      + " (as root, or through sudo), or set LOOPFLOW_PG_BIN to a directory that holds them";

  private static final List<String> SERVER_BINARIES = List.of("initdb", "pg_ctl", "postgres");
  private static final String SUPERUSER = "loopflow";
  private static final String DEFAULT_DATABASE = "postgres";
  private static final String SYSTEM_USER = "postgres";
  private static final long COMMAND_TIMEOUT_SECONDS = 60;
  private static final int START_ATTEMPTS = 3;
  private static final int LOG_TAIL_LINES = 40;
  private static final Pattern VERSION = Pattern.compile("\\d+(\\.\\d+)*");
  private static final Pattern DATABASE_NAME = Pattern.compile("[A-Za-z0-9_-]{1,63}");
  private static final Pattern JDBC_URL = Pattern.compile("(jdbc:postgresql://[^/?]*)(/[^?]*)?(\\?.*)?");
  private static final Pattern TRAILING_PORT = Pattern.compile(".*:(\\d+)");

  private static PostgresServer shared;

  /** The cluster this instance started, or null when it only reports an external server. */
  private final Cluster cluster;
  private final boolean closeable;
  private final int port;
  private final String jdbcUrl;
  private final String url;
  private final String jdbcAuthority;
  private final String jdbcQuery;
  private final AtomicBoolean stopped = new AtomicBoolean();
  private final Thread shutdownHook = new Thread(this::stopFromShutdownHook, "loopflow-postgres-stop");

  private PostgresServer(Cluster cluster, boolean closeable, int port, String jdbcUrl, String url,
      String jdbcAuthority, String jdbcQuery) {
    this.cluster = cluster;
    this.closeable = closeable;
    this.port = port;
    this.jdbcUrl = jdbcUrl;
    this.url = url;
    this.jdbcAuthority = jdbcAuthority;
    this.jdbcQuery = jdbcQuery;
  }

  /**
   * Creates and starts a new cluster; the caller owns it and must {@link #close()} it.
   *
   * @throws IllegalStateException if the server binaries are missing or a step of the setup fails
   */
  public static PostgresServer start() {
    return startCluster(true);
  }

  /**
   * The server shared by every test in this JVM, started on first use and stopped when the JVM exits.
   * {@link #close()} on it does nothing, so one test class cannot stop it under another.
   */
  public static synchronized PostgresServer shared() {
    if (shared == null) {
      String external = System.getenv("LOOPFLOW_TEST_PG_URL");
      shared = external == null || external.isBlank() ? startCluster(false) : external(external.strip());
    }
    return shared;
  }

  /** A server that only reports the given JDBC URL; nothing is started or stopped. */
  static PostgresServer external(String jdbcUrl) {
    Matcher m = JDBC_URL.matcher(jdbcUrl);
    if (!m.matches()) {
      throw new IllegalArgumentException("LOOPFLOW_TEST_PG_URL must be a jdbc:postgresql://host[:port]/database URL");
    }
    String authority = m.group(1);
    String firstHost = authority.substring("jdbc:postgresql://".length()).split(",", -1)[0];
    Matcher portMatch = TRAILING_PORT.matcher(firstHost);
    int port = portMatch.matches() ? Integer.parseInt(portMatch.group(1)) : 5432;
    String query = m.group(3) == null ? "" : m.group(3);
    return new PostgresServer(null, false, port, jdbcUrl, jdbcUrl.substring("jdbc:".length()), authority, query);
  }

  /** The TCP port the server listens on. */
  public int port() {
    return port;
  }

  /**
   * A pgjdbc URL for the default database, {@code jdbc:postgresql://127.0.0.1:<port>/postgres?user=loopflow}; for an
   * external server, {@code LOOPFLOW_TEST_PG_URL} as given.
   */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** A pgjdbc URL for another database on this server, as the same user. */
  public String jdbcUrl(String database) {
    return jdbcAuthority + "/" + checkedName(database) + jdbcQuery;
  }

  /**
   * A libpq URL for the default database, {@code postgresql://loopflow@127.0.0.1:<port>/postgres}; for an external
   * server, {@code LOOPFLOW_TEST_PG_URL} without its {@code jdbc:} prefix.
   */
  public String url() {
    return url;
  }

  /**
   * Creates a database with {@code createdb} and returns its {@link #jdbcUrl(String) JDBC URL}.
   *
   * @param name letters, digits, {@code _} and {@code -}, at most 63 characters
   * @throws UnsupportedOperationException for the external server named by {@code LOOPFLOW_TEST_PG_URL}
   */
  public String createDatabase(String name) {
    checkedName(name);
    if (cluster == null) {
      throw new UnsupportedOperationException("createDatabase needs a server started by PostgresServer; this one is"
          + " the external server from LOOPFLOW_TEST_PG_URL, so create the database there beforehand");
    }
    if (stopped.get()) {
      throw new IllegalStateException("the PostgreSQL server on port " + port + " is already closed");
    }
    cluster.run("createdb", "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", SUPERUSER, name);
    return jdbcUrl(name);
  }

  /**
   * Stops the server immediately (no checkpoint, the data is thrown away) and deletes its directory. Does nothing
   * for the {@link #shared()} server and for an external one.
   */
  @Override
  public void close() {
    if (cluster == null || !closeable) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shutdownInProgress) {
      // The hook is running or about to; stop() below is idempotent.
    }
    stop();
  }

  @Override
  public String toString() {
    return "PostgresServer[" + url + "]";
  }

  private static PostgresServer startCluster(boolean closeable) {
    Path bin = locateBinaries(System.getenv("LOOPFLOW_PG_BIN"), INSTALL_ROOT);
    Cluster cluster = Cluster.create(bin, runningAsRoot());
    try {
      cluster.run("initdb", "-D", cluster.data().toString(), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
          "--no-locale", "--no-sync");
      int port = cluster.startServer();
      String host = "127.0.0.1:" + port;
      PostgresServer server = new PostgresServer(cluster, closeable, port,
          "jdbc:postgresql://" + host + "/" + DEFAULT_DATABASE + "?user=" + SUPERUSER,
          "postgresql://" + SUPERUSER + "@" + host + "/" + DEFAULT_DATABASE,
          "jdbc:postgresql://" + host, "?user=" + SUPERUSER);
      Runtime.getRuntime().addShutdownHook(server.shutdownHook);
      return server;
    } catch (RuntimeException e) {
      cluster.discard(e);
      throw e;
    }
  }

  private void stop() {
    if (stopped.compareAndSet(false, true)) {
      try {
        cluster.stopServer();
      } finally {
        cluster.delete();
      }
    }
  }

  private void stopFromShutdownHook() {
    try {
      stop();
    } catch (RuntimeException e) {
      System.err.println("loopflow: could not stop the PostgreSQL test server on port " + port + ": " + e);
    }
  }

  private static String checkedName(String database) {
    if (database == null || !DATABASE_NAME.matcher(database).matches()) {
      throw new IllegalArgumentException("database name must be 1 to 63 letters, digits, '_' or '-': " + database);
    }
    return database;
  }

  /**
   * The directory with the server binaries: {@code override} if given, else {@code <installRoot>/<version>/bin}
   * of the highest installed version.
   */
  static Path locateBinaries(String override, Path installRoot) {
    if (override != null && !override.isBlank()) {
      Path bin = Path.of(override);
      if (hasServerBinaries(bin)) {
        return bin;
      }
      throw new IllegalStateException("LOOPFLOW_PG_BIN is " + bin + ", but the PostgreSQL server binaries "
          + SERVER_BINARIES + " were not found there; " + INSTALL_HINT);
    }
    return installedVersions(installRoot)
        .filter(version -> hasServerBinaries(version.resolve("bin")))
        .max(Comparator.comparing((Path version) -> version.getFileName().toString(), PostgresServer::compareVersions))
        .map(version -> version.resolve("bin"))
        .orElseThrow(() -> new IllegalStateException("PostgreSQL server binaries " + SERVER_BINARIES
            + " were not found under " + installRoot + "/<version>/bin; " + INSTALL_HINT));
  }

  private static Stream<Path> installedVersions(Path installRoot) {
    try (Stream<Path> entries = Files.list(installRoot)) {
      return entries.filter(p -> VERSION.matcher(p.getFileName().toString()).matches()).toList().stream();
    } catch (NoSuchFileException e) {
      return Stream.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + installRoot, e);
    }
  }

  private static boolean hasServerBinaries(Path bin) {
    return SERVER_BINARIES.stream().allMatch(name -> Files.isExecutable(bin.resolve(name)));
  }

  private static int compareVersions(String a, String b) {
    String[] x = a.split("\\.");
    String[] y = b.split("\\.");
    for (int i = 0; i < Math.max(x.length, y.length); i++) {
      int c = Long.compare(i < x.length ? Long.parseLong(x[i]) : 0, i < y.length ? Long.parseLong(y[i]) : 0);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  private static boolean runningAsRoot() {
    return "root".equals(System.getProperty("user.name")) || "0".equals(execute(null, List.of("id", "-u")).strip());
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port on 127.0.0.1", e);
    }
  }

  /**
   * Runs a command with a timeout and returns its combined stdout and stderr. The output goes to a file rather
   * than a pipe: {@code pg_ctl start} leaves a server running that must not hold the caller's pipe open.
   */
  private static String execute(Path directory, List<String> command) {
    String shown = command.stream().map(PostgresServer::shellQuoted).collect(Collectors.joining(" "));
    Path output;
    try {
      output = Files.createTempFile("loopflow-pg-", ".out");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a file for the output of " + shown, e);
    }
    try {
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .redirectOutput(output.toFile())
          .redirectErrorStream(true);
      if (directory != null) {
        builder.directory(directory.toFile());
      }
      builder.environment().keySet().removeIf(name -> name.startsWith("PG"));
      Process process = builder.start();
      if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
        throw new IllegalStateException("`" + shown + "` did not finish within " + COMMAND_TIMEOUT_SECONDS
            + " s and was killed; output:\n" + Files.readString(output, StandardCharsets.UTF_8));
      }
      String text = Files.readString(output, StandardCharsets.UTF_8);
      if (process.exitValue() != 0) {
        throw new IllegalStateException("`" + shown + "` failed with exit code " + process.exitValue()
            + "; output:\n" + text);
      }
      return text;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run `" + shown + "`: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running `" + shown + "`", e);
    } finally {
      try {
        Files.deleteIfExists(output);
      } catch (IOException ignored) {
        // A stray file in the temp directory is not worth failing a test for.
      }
    }
  }

  private static String shellQuoted(String arg) {
    return arg.isEmpty() || arg.matches(".*[\\s'\"\\\\$`].*") ? "'" + arg.replace("'", "'\\''") + "'" : arg;
  }

  /** The on-disk side of a started cluster: {@code <root>/data}, {@code <root>/sockets}, {@code <root>/server.log}. */
  private record Cluster(Path bin, Path root, boolean asSystemUser) {

    static Cluster create(Path bin, boolean asSystemUser) {
      Path root = null;
      try {
        root = Files.createTempDirectory("loopflow-pg-");
        Path sockets = Files.createDirectory(root.resolve("sockets"));
        if (asSystemUser) {
          UserPrincipal owner = root.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(SYSTEM_USER);
          Files.setOwner(root, owner);
          Files.setOwner(sockets, owner);
        }
        return new Cluster(bin, root, asSystemUser);
      } catch (UserPrincipalNotFoundException e) {
        deleteTree(root);
        throw new IllegalStateException("running as root, but there is no '" + SYSTEM_USER + "' user to run PostgreSQL"
            + " as (PostgreSQL refuses to run as root); " + INSTALL_HINT, e);
      } catch (IOException e) {
        deleteTree(root);
        throw new UncheckedIOException("cannot create a directory for a PostgreSQL cluster", e);
      }
    }

    Path data() {
      return root.resolve("data");
    }

    Path log() {
      return root.resolve("server.log");
    }

    String run(String tool, String... args) {
      List<String> command = new ArrayList<>();
      if (asSystemUser) {
        command.addAll(List.of("runuser", "-u", SYSTEM_USER, "--"));
      }
      command.add(bin.resolve(tool).toString());
      command.addAll(List.of(args));
      return execute(root, command);
    }

    /** Starts the server on a free port and returns the port; retries if another process took the port first. */
    int startServer() {
      for (int attempt = 1; ; attempt++) {
        int port = freePort();
        String options = "-p " + port + " -k '" + root.resolve("sockets") + "' -c listen_addresses=127.0.0.1"
            + " -c fsync=off -c full_page_writes=off -c synchronous_commit=off";
        try {
          run("pg_ctl", "-D", data().toString(), "-o", options, "-w", "-l", log().toString(), "start");
          return port;
        } catch (IllegalStateException e) {
          String log = logTail();
          if (attempt < START_ATTEMPTS && log.contains("Address already in use")) {
            deleteQuietly(log());
            continue;
          }
          throw new IllegalStateException(e.getMessage() + "\nlast lines of the server log " + log() + ":\n" + log, e);
        }
      }
    }

    void stopServer() {
      run("pg_ctl", "-D", data().toString(), "-m", "immediate", "stop");
    }

    /** Undoes a failed start: stops the server if it got as far as running, then deletes the directory. */
    void discard(RuntimeException cause) {
      try {
        if (Files.exists(data().resolve("postmaster.pid"))) {
          stopServer();
        }
      } catch (RuntimeException e) {
        cause.addSuppressed(e);
      }
      try {
        delete();
      } catch (RuntimeException e) {
        cause.addSuppressed(e);
      }
    }

    void delete() {
      deleteTree(root);
    }

    private String logTail() {
      try {
        List<String> lines = Files.readAllLines(log(), StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
      } catch (IOException e) {
        return "(no server log: " + e + ")";
      }
    }

    private static void deleteQuietly(Path file) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException ignored) {
        // The next attempt appends to the old log instead.
      }
    }

    private static void deleteTree(Path root) {
      if (root == null) {
        return;
      }
      try (Stream<Path> paths = Files.walk(root)) {
        for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(path);
        }
      } catch (NoSuchFileException e) {
        // Already gone.
      } catch (IOException e) {
        throw new UncheckedIOException("cannot delete the PostgreSQL cluster directory " + root, e);
      }
    }
  }
}
