package dev.loopflow.cli;

import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import java.nio.file.Path;

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

  static String url(String flag) {
    if (flag != null && !flag.isBlank()) {
      return flag;
    }
    String env = System.getenv("LOOPFLOW_STORE");
    if (env != null && !env.isBlank()) {
      return env;
    }
    return "sqlite:" + JdbcStores.defaultFile(home());
  }

  /**
   * Opens the store. A URL the store cannot understand is a usage error; a store that is named correctly but
   * cannot be opened (unreachable database, unwritable LOOPFLOW_HOME) is a runtime failure. Both name the URL.
   */
  static RunStore open(String flag) {
    String url = url(flag);
    SqliteNativeLibrary.prepare();
    try {
      return JdbcStores.open(url);
    } catch (IllegalArgumentException e) {
      throw CliError.usage(source(flag) + ": " + Errors.describe(e), e);
    } catch (RuntimeException e) {
      throw CliError.failure("cannot open the run store '" + url + "': " + Errors.describe(e), e);
    } catch (LinkageError e) {
      // SQLite's driver could not load its native library (no writable directory to extract it to, a foreign
      // platform): an Error, which would otherwise end the process with a stack trace.
      throw CliError.failure("cannot open the run store '" + url + "': SQLite's native library could not be "
          + "loaded (" + e.getClass().getSimpleName() + ": " + e.getMessage() + "); it is extracted next to the "
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
    String env = System.getenv("LOOPFLOW_STORE");
    return env != null && !env.isBlank() ? "LOOPFLOW_STORE" : "LOOPFLOW_HOME";
  }
}
