-- Large values, stored once per run by the SHA-256 of their JSON; journal documents refer to them (see ValueRefs).
CREATE TABLE lf_values (
  run_id  VARCHAR(64)  NOT NULL,
  hash    VARCHAR(64)  NOT NULL,
  body    TEXT         NOT NULL,
  PRIMARY KEY (run_id, hash)
);
