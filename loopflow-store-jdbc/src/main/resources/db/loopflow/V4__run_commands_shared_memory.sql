-- The command bus: requests to the engine executing a run, from any process, and the engine's answers. seq is
-- 1-based per run, assigned by the store under a lock (see CommandBus). A command may name a run that does not
-- exist (yet): there is no foreign key, and nothing deletes commands, so they stay as the record of what was asked
-- and answered. Payloads and responses are JSON documents; a null response_json means the command is pending.
CREATE TABLE lf_run_commands (
  run_id        TEXT     NOT NULL,
  seq           BIGINT   NOT NULL,
  kind          TEXT     NOT NULL,
  payload_json  TEXT     NOT NULL,
  created_at    TEXT     NOT NULL,
  response_json TEXT,
  responded_at  TEXT,
  PRIMARY KEY (run_id, seq)
);

-- Shared memory: bytes by scope, namespace and key, replaced on put. The value column is BYTEA, PostgreSQL's type
-- for bytes; SQLite accepts the name too (it gives the column NUMERIC affinity, which converts only text values, so
-- the blobs bound here are kept as they are). compressed is 0 or 1; metadata_json a JSON object of strings.
CREATE TABLE lf_shared_memory (
  scope         TEXT     NOT NULL,
  namespace     TEXT     NOT NULL,
  key           TEXT     NOT NULL,
  value         BYTEA    NOT NULL,
  compressed    INTEGER  NOT NULL,
  metadata_json TEXT     NOT NULL,
  stored_at     TEXT     NOT NULL,
  PRIMARY KEY (scope, namespace, key)
);
