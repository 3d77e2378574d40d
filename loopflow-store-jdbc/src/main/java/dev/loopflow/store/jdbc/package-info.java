/**
 * Durable run stores: SQLite (WAL, the default under {@code LOOPFLOW_HOME}) and PostgreSQL, both behind
 * {@link dev.loopflow.core.store.RunStore} with one Flyway-managed schema. {@link dev.loopflow.store.jdbc.JdbcStores}
 * is the only public entry point; everything else is package-private.
 */
package dev.loopflow.store.jdbc;
