package dev.loopflow.store.jdbc;

import dev.loopflow.core.store.RunStore;
import dev.loopflow.testkit.RunStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteStoreContractTest extends RunStoreContract {
  @TempDir
  Path dir;

  @Override
  protected RunStore open() {
    return JdbcStores.open("sqlite:" + dir.resolve("runs.db"));
  }

  @Override
  protected RunStore reopen() {
    return JdbcStores.open("sqlite:" + dir.resolve("runs.db"));
  }
}
