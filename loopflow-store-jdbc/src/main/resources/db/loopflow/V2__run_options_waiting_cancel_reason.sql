-- What a resume must reuse (run options such as the mock LLM provider and its script), what a paused run waits
-- for (kind, node, pass, message, deadline), and why another process asked a running run to stop.
ALTER TABLE lf_runs ADD COLUMN options_json TEXT;
ALTER TABLE lf_runs ADD COLUMN waiting_json TEXT;
ALTER TABLE lf_runs ADD COLUMN cancel_reason TEXT;
