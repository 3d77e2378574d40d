-- The run journal. One logical schema for SQLite and PostgreSQL: only types and statements both accept.
-- JSON documents are TEXT; instants are ISO-8601 TEXT, plus epoch milliseconds where rows are ordered by time.

CREATE TABLE lf_runs (
  run_id            VARCHAR(64)  NOT NULL PRIMARY KEY,
  workflow          TEXT         NOT NULL,
  file              TEXT,
  source            TEXT,
  source_hash       VARCHAR(80),
  working_directory TEXT,
  inputs_json       TEXT,
  status            VARCHAR(16)  NOT NULL,
  started_at        TEXT         NOT NULL,
  started_ms        BIGINT       NOT NULL,
  finished_at       TEXT,
  usage_json        TEXT,
  output_json       TEXT,
  error_json        TEXT,
  paused_at         TEXT,
  pause_message     TEXT,
  lease_owner       TEXT,
  lease_until_ms    BIGINT,
  cancel_requested  INTEGER      NOT NULL DEFAULT 0
);

CREATE INDEX lf_runs_started ON lf_runs (started_ms);
CREATE INDEX lf_runs_status ON lf_runs (status);

-- Node executions are journal deltas: one row per execution, keyed by run and journal order, never rewritten.
CREATE TABLE lf_node_executions (
  run_id           VARCHAR(64)  NOT NULL,
  seq              BIGINT       NOT NULL,
  path             TEXT         NOT NULL,
  node_id          TEXT         NOT NULL,
  loops_json       TEXT,
  kind             VARCHAR(64)  NOT NULL,
  status           VARCHAR(16)  NOT NULL,
  attempts         INTEGER      NOT NULL,
  started_at       TEXT,
  finished_at      TEXT,
  input_json       TEXT,
  result_json      TEXT,
  usage_json       TEXT,
  error_code       VARCHAR(64),
  error_message    TEXT,
  state_patch_json TEXT,
  sessions_json    TEXT,
  PRIMARY KEY (run_id, seq)
);

CREATE TABLE lf_events (
  run_id  VARCHAR(64)  NOT NULL,
  seq     BIGINT       NOT NULL,
  type    VARCHAR(40)  NOT NULL,
  at      TEXT         NOT NULL,
  body    TEXT         NOT NULL,
  PRIMARY KEY (run_id, seq)
);
