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

  /** Opens the store; a bad URL or an unreachable database is a {@link StoreException} naming it. */
  static RunStore open(String flag) {
    String url = url(flag);
    try {
      return JdbcStores.open(url);
    } catch (RuntimeException e) {
      throw new StoreException("cannot open the run store '" + url + "': " + e.getMessage(), e);
    }
  }

  static final class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StoreException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
