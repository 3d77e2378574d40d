package dev.loopflow.bench.server;

import java.util.List;
import java.util.Map;

/** What one measured step found: its figures (JSON-ready) and the checks it failed (empty when none). */
record Outcome(Map<String, Object> figures, List<String> problems) {}
