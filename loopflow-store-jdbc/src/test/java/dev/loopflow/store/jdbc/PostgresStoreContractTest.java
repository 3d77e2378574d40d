package dev.loopflow.store.jdbc;

import dev.loopflow.core.store.RunStore;
import dev.loopflow.testkit.RunStoreContract;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresStoreContractTest extends RunStoreContract implements dev.loopflow.testkit.LeaseFencingContract {
  private String database;

  /** Runs after the contract's own @AfterEach has closed the store. */
  @RegisterExtension
  final AfterEachCallback dropDatabase = context -> {
    if (database != null) {
      PostgresDatabases.drop(database);
    }
  };

  @Override
  protected RunStore open() throws Exception {
    database = PostgresDatabases.create("contract", "");
    return JdbcStores.open(PostgresDatabases.url(database));
  }

  @Override
  protected RunStore reopen() {
    return JdbcStores.open(PostgresDatabases.url(database));
  }
}
