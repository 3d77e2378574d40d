package dev.loopflow.cli;

import dev.loopflow.core.secrets.StoreUrls;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Which run store a command uses: {@code --store URL}, else {@code LOOPFLOW_STORE}, else the SQLite file
 * {@code loopflow.db} under {@code LOOPFLOW_HOME} (default {@code ~/.loopflow}). The system property
 * {@code loopflow.home} overrides the home (the build points it under target/ so tests never touch a real home).
 */
final class Stores {
  private Stores() {}

  static Path home() {
    String p = System.getProperty("loopflow.home");
    if (p == null || p.isBlank()) {
      p = System.getenv("LOOPFLOW_HOME");
    }
    if (p == null || p.isBlank()) {
      return Path.of(System.getProperty("user.home"), ".loopflow");
    }
    return Path.of(p);
  }

  /**
   * The store URLs this process was given ({@code --store} values seen, {@code LOOPFLOW_STORE}): every message the
   * CLI prints has their credentials masked, wherever a message quotes them (a driver's exception text too).
   */
  private static final Set<String> SEEN = ConcurrentHashMap.newKeySet();

  static String url(String flag) {
    String env = Support.environment.get("LOOPFLOW_STORE");
    if (env != null && !env.isBlank()) {
      SEEN.add(env);
    }
    if (flag != null && !flag.isBlank()) {
      SEEN.add(flag);
      return flag;
    }
    if (env != null && !env.isBlank()) {
      return env;
    }
    return "sqlite:" + JdbcStores.defaultFile(home());
  }

  /** The store URL for a message: its password and credential parameters masked. */
  static String printable(String flag) {
    return StoreUrls.printable(url(flag));
  }

  /** {@link #printable(String)} for the commands that take {@code --store} through {@link StoreOption}. */
  static String printable(StoreOption option) {
    return printable(option.url);
  }

  /** {@code text} with the credentials of every store URL this process was given masked. */
  static String scrub(String text) {
    String out = text;
    String env = Support.environment.get("LOOPFLOW_STORE");
    if (env != null && !env.isBlank()) {
      SEEN.add(env);
    }
    for (String url : SEEN) {
      out = StoreUrls.scrub(out, url);
    }
    return out;
  }

  /**
   * Opens the store. A URL the store cannot understand is a usage error; a store that is named correctly but
   * cannot be opened (unreachable database, unwritable LOOPFLOW_HOME) is a runtime failure. Both name the URL.
   */
  /**
   * The PostgreSQL driver logs warnings that quote the JDBC URL (with its other parameters, sslpassword among them)
   * through java.util.logging, which prints to stderr: the CLI reports the driver's failures itself, so its log is
   * off. Held here so the setting is not collected with the logger.
   */
  private static final Logger PG_LOG = Logger.getLogger("org.postgresql");

  static RunStore open(String flag) {
    return open(flag, JdbcStores.DEFAULT_CONNECTIONS);
  }

  /** {@link #open(String)} with at most {@code connections} connections to a PostgreSQL store. */
  static RunStore open(String flag, int connections) {
    PG_LOG.setLevel(Level.OFF);
    String url = url(flag);
    SqliteNativeLibrary.prepare();
    try {
      return JdbcStores.open(url, connections);
    } catch (IllegalArgumentException e) {
      throw CliError.usage(source(flag) + ": " + StoreUrls.scrub(Errors.describe(e), url), e);
    } catch (RuntimeException e) {
      throw CliError.failure("cannot open the run store '" + StoreUrls.printable(url) + "': "
          + StoreUrls.scrub(Errors.describe(e), url), e);
    } catch (LinkageError e) {
      // SQLite's driver could not load its native library (no writable directory to extract it to, a foreign
      // platform): an Error, which would otherwise end the process with a stack trace.
      throw CliError.failure("cannot open the run store '" + StoreUrls.printable(url) + "': SQLite's native "
          + "library could not be loaded (" + e.getClass().getSimpleName() + ": " + StoreUrls.scrub(e.getMessage(),
          url) + "); it is extracted next to the "
          + "CLI's jar (native/), under LOOPFLOW_HOME/native or into java.io.tmpdir, one of which must be writable",
          e);
    }
  }

  /** {@link #url(String)} for the commands that take {@code --store} through {@link StoreOption}. */
  static String url(StoreOption option) {
    return url(option.url);
  }

  /** {@link #open(String)} for the commands that take {@code --store} through {@link StoreOption}. */
  static RunStore open(StoreOption option) {
    return open(option.url);
  }

  /** Where the store URL came from, for messages. */
  private static String source(String flag) {
    if (flag != null && !flag.isBlank()) {
      return "--store";
    }
    String env = Support.environment.get("LOOPFLOW_STORE");
    return env != null && !env.isBlank() ? "LOOPFLOW_STORE" : "LOOPFLOW_HOME";
  }
}
