package dev.loopflow.store.jdbc;

import dev.loopflow.core.store.RunStore;
import dev.loopflow.testkit.PostgresServer;
import dev.loopflow.testkit.RunStoreContract;
import java.util.concurrent.atomic.AtomicInteger;

class PostgresStoreContractTest extends RunStoreContract {
  private static final AtomicInteger DATABASES = new AtomicInteger();
  private String url;

  @Override
  protected RunStore open() {
    PostgresServer pg = PostgresServer.shared();
    String db = "contract_" + DATABASES.incrementAndGet();
    pg.createDatabase(db);
    url = pg.jdbcUrl(db);
    return JdbcStores.open(url);
  }

  @Override
  protected RunStore reopen() {
    return JdbcStores.open(url);
  }
}
