/**
 * Runs on more than one machine: {@link dev.loopflow.store.jdbc.workers.RunQueue} queues runs in a PostgreSQL store,
 * and {@link dev.loopflow.store.jdbc.workers.Worker} processes take them and execute them with the normal engine.
 * Dispatch, heartbeats and the revival of a dead worker's runs are db-scheduler's (one table,
 * {@code lf_scheduled_tasks}); that no run is executed twice at once is the store's lease fencing. A queued run is
 * announced on {@code LISTEN/NOTIFY} so that idle workers take it at once; polling is only the fallback.
 */
package dev.loopflow.store.jdbc.workers;
