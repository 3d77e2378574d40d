/**
 * Durable run journals in SQLite or PostgreSQL, opened with {@link dev.loopflow.store.jdbc.JdbcStores}. The schema
 * is created and migrated by Flyway from the scripts in {@code db/loopflow}, which is opened so that Flyway (another
 * module) can list and read them.
 */
module dev.loopflow.store.jdbc {
  requires transitive dev.loopflow.core;
  requires java.sql;
  requires com.zaxxer.hikari;
  requires flyway.core;
  requires com.github.kagkarlsson.scheduler;
  // Found by Flyway and by JDBC at run time, never named in code; required so that they are in the module graph.
  requires flyway.database.postgresql;
  requires org.postgresql.jdbc;
  requires org.xerial.sqlitejdbc;

  exports dev.loopflow.store.jdbc;
  exports dev.loopflow.store.jdbc.workers;

  opens db.loopflow;
}
