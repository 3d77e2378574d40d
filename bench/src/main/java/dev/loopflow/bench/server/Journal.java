package dev.loopflow.bench.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A finished run's journal as the server replays it ({@code GET /api/runs/{id}/events} with no Last-Event-ID once
 * the run has ended): the reference every live stream is compared with. {@link #problems()} lists what makes the
 * journal itself incomplete: sequence numbers must run 1, 2, 3, … without a gap, start with {@code run.started}, and
 * hold exactly one {@code run.finished}, last; each frame's id and type must be those of its data.
 */
final class Journal {
  /** One journaled event: the fields the checks compare, and its timestamp for latencies. */
  record Entry(long seq, String type, long hash, long at) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String runId;
  private final List<Entry> entries = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();

  private Journal(String runId) {
    this.runId = runId;
  }

  static Journal fetch(URI base, String token, String runId) throws IOException {
    Journal j = new Journal(runId);
    SseParser parser = new SseParser(j::frame, true);
    try (SseConnection c = SseConnection.open(base, token, runId, 0)) {
      if (c.status() != 200) {
        j.problems.add("replaying the journal: HTTP " + c.status() + ": " + c.readRest());
        return j;
      }
      byte[] buf = new byte[64 * 1024];
      for (int n = c.read(buf); n >= 0; n = c.read(buf)) {
        parser.feed(buf, 0, n);
      }
    }
    if (parser.midFrame()) {
      j.problems.add("the replay ended inside a frame");
    }
    j.checkSequence();
    return j;
  }

  /** A journal made of given entries (for tests of the checks). */
  static Journal of(String runId, List<Entry> entries) {
    Journal j = new Journal(runId);
    j.entries.addAll(entries);
    j.checkSequence();
    return j;
  }

  private void frame(String id, String type, long hash, int length, String data) {
    if (id == null) {
      problems.add("the replay holds a frame without an id (type " + type + ")");
      return;
    }
    Map<?, ?> m;
    try {
      m = JSON.readValue(data, Map.class);
    } catch (IOException e) {
      problems.add("frame " + id + ": data is not a JSON object: " + e.getMessage());
      return;
    }
    long seq = Long.parseLong(id);
    if (!(m.get("seq") instanceof Number n) || n.longValue() != seq) {
      problems.add("frame " + id + ": its data has seq " + m.get("seq"));
    }
    if (!type.equals(m.get("type"))) {
      problems.add("frame " + id + ": event '" + type + "' but data type '" + m.get("type") + "'");
    }
    if (!runId.equals(m.get("run_id"))) {
      problems.add("frame " + id + ": data of run '" + m.get("run_id") + "'");
    }
    long at = m.get("at") instanceof String s ? WallClock.epochNanos(Instant.parse(s)) : 0;
    entries.add(new Entry(seq, type, hash, at));
  }

  private void checkSequence() {
    if (entries.isEmpty()) {
      problems.add("the journal is empty");
      return;
    }
    for (int i = 0; i < entries.size(); i++) {
      if (entries.get(i).seq() != i + 1) {
        problems.add("journal position " + (i + 1) + " holds seq " + entries.get(i).seq()
            + " (sequence numbers must run 1, 2, 3, ... without a gap)");
        break;
      }
    }
    if (!"run.started".equals(entries.getFirst().type())) {
      problems.add("the journal starts with " + entries.getFirst().type() + ", not run.started");
    }
    long finished = entries.stream().filter(e -> "run.finished".equals(e.type())).count();
    if (finished != 1) {
      problems.add("the journal holds " + finished + " run.finished events, not 1");
    } else if (!"run.finished".equals(entries.getLast().type())) {
      problems.add("run.finished is not the journal's last event");
    }
  }

  String runId() {
    return runId;
  }

  List<Entry> entries() {
    return entries;
  }

  List<String> problems() {
    return problems;
  }

  /** The event with sequence number {@code seq}, when the journal is complete (seq n at index n - 1). */
  Entry bySeq(long seq) {
    return seq >= 1 && seq <= entries.size() && entries.get((int) seq - 1).seq() == seq
        ? entries.get((int) seq - 1) : null;
  }

  /** Wall time from run.started to run.finished, in nanoseconds. */
  long durationNanos() {
    return entries.isEmpty() ? 0 : entries.getLast().at() - entries.getFirst().at();
  }
}
