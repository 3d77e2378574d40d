package dev.loopflow.store.jdbc;

import dev.loopflow.core.store.RunStore;
import dev.loopflow.testkit.PostgresServer;
import dev.loopflow.testkit.RunStoreContract;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

class PostgresStoreContractTest extends RunStoreContract {
  private static final AtomicInteger DATABASES = new AtomicInteger();
  private String url;

  /**
   * Each test gets a database of its own, created over SQL: the contract has a few hundred cases, and starting the
   * createdb tool for each would take most of the suite's time.
   */
  @Override
  protected RunStore open() throws Exception {
    PostgresServer pg = PostgresServer.shared();
    String db = "contract_" + DATABASES.incrementAndGet();
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl()); Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + db);
    }
    url = pg.jdbcUrl(db);
    return JdbcStores.open(url);
  }

  @Override
  protected RunStore reopen() {
    return JdbcStores.open(url);
  }
}
