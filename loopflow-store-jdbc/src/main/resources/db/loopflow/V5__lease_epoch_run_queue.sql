-- The run's lease epoch: raised by one each time an engine claims the run's lease (a renewal by the holder keeps it).
-- On PostgreSQL every journal write of a run executing under a lease checks, in its own transaction, that the epoch
-- is still the one its engine claimed, so an engine whose lease was taken over can never write again.
ALTER TABLE lf_runs ADD COLUMN lease_epoch BIGINT NOT NULL DEFAULT 0;

-- The queue of runs for worker processes: db-scheduler's table, one one-time execution per queued run (task
-- 'loopflow-run', instance = the run id). Its columns are db-scheduler's and must stay as they are. SQLite accepts
-- the column types too; only PostgreSQL stores use the queue.
CREATE TABLE lf_scheduled_tasks (
  task_name            TEXT                     NOT NULL,
  task_instance        TEXT                     NOT NULL,
  task_data            BYTEA,
  execution_time       TIMESTAMP WITH TIME ZONE NOT NULL,
  picked               BOOLEAN                  NOT NULL,
  picked_by            TEXT,
  last_success         TIMESTAMP WITH TIME ZONE,
  last_failure         TIMESTAMP WITH TIME ZONE,
  consecutive_failures INT,
  last_heartbeat       TIMESTAMP WITH TIME ZONE,
  version              BIGINT                   NOT NULL,
  priority             SMALLINT,
  PRIMARY KEY (task_name, task_instance)
);
CREATE INDEX lf_scheduled_tasks_execution_time_idx ON lf_scheduled_tasks (execution_time);
CREATE INDEX lf_scheduled_tasks_last_heartbeat_idx ON lf_scheduled_tasks (last_heartbeat);
