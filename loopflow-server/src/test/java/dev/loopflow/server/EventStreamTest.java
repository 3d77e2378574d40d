package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.RunStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** GET /api/runs/{id}/events: replay, live events, reconnects, several clients, heartbeats, the end of a stream. */
class EventStreamTest {
  static final Duration WAIT = Duration.ofSeconds(30);
  static final String GATED_APPROVAL = """
      name: gated-approval
      input:
        gate: {type: string}
      nodes:
        - id: wait
          bash: 'while [ ! -f "{{ input.gate }}" ]; do sleep 0.02; done; echo go'
        - id: ask
          approval: "Go on?"
      edges: [{from: wait, to: ask}]
      """;

  @TempDir static Path tmp;
  static ServerHarness h;
  static RunStore other;

  @BeforeAll
  static void start() {
    h = new ServerHarness(tmp.resolve("home"));
    other = h.otherStore();
  }

  @AfterAll
  static void stop() {
    other.close();
    h.close();
  }

  private static String start(String source, Path gate) {
    ServerHarness.Response r = h.post("/api/runs", gate == null ? ServerHarness.map("source", source)
        : ServerHarness.map("source", source, "inputs", ServerHarness.map("gate", gate.toString())));
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return r.json().path("run_id").asText();
  }

  /** The frames the journal says the stream must carry: every journaled event, as `loopflow events` prints it. */
  private static List<SseClient.Frame> journal(String runId) {
    Redactor redactor = Redactor.ofEnvironment(System.getenv());
    List<SseClient.Frame> out = new ArrayList<>();
    for (Event e : other.events(runId)) {
      out.add(new SseClient.Frame(e.seq(), e.type(), Json.compact(Events.toMap(redactor.event(e)))));
    }
    return out;
  }

  private static void assertStrictlyIncreasing(List<SseClient.Frame> frames) {
    for (int i = 1; i < frames.size(); i++) {
      assertThat(frames.get(i).id()).isGreaterThan(frames.get(i - 1).id());
    }
  }

  @Test
  void aFinishedRunIsReplayedWholeAndTheStreamCloses() throws Exception {
    String id = start(Fixtures.QUICK, null);
    h.awaitStatus(id, "completed");
    try (SseClient c = SseClient.open(h, "/api/runs/" + id + "/events", null)) {
      assertThat(c.status).isEqualTo(200);
      assertThat(c.contentType).startsWith("text/event-stream");
      c.awaitEnd(WAIT);
      assertThat(c.frames).isEqualTo(journal(id));
      assertThat(c.frames.getLast().event()).isEqualTo("run.finished");
    }
  }

  @Test
  void aLiveStreamCarriesEveryEventInOrderAndClosesAfterRunFinished() throws Exception {
    Path gate = tmp.resolve("gate-live");
    String id = start(Fixtures.LOOPING, gate);
    try (SseClient c = SseClient.open(h, "/api/runs/" + id + "/events", null)) {
      c.await(f -> "node.started".equals(f.event()), WAIT);
      Fixtures.release(gate);
      c.awaitEnd(WAIT);
      assertThat(c.frames.getLast().event()).isEqualTo("run.finished");
      assertThat(c.durable()).isEqualTo(journal(id));
      assertStrictlyIncreasing(c.durable());
    }
  }

  @Test
  void theStreamClosesWhenTheRunPauses() throws Exception {
    Path gate = tmp.resolve("gate-pause");
    String id = start(GATED_APPROVAL, gate);
    try (SseClient live = SseClient.open(h, "/api/runs/" + id + "/events", null)) {
      live.await(f -> "node.started".equals(f.event()), WAIT);
      Fixtures.release(gate);
      live.awaitEnd(WAIT);
      assertThat(live.frames.getLast().event()).isEqualTo("run.paused");
      assertThat(live.durable()).isEqualTo(journal(id));
    }
    try (SseClient later = SseClient.open(h, "/api/runs/" + id + "/events", null)) {
      later.awaitEnd(WAIT);
      assertThat(later.frames).isEqualTo(journal(id));
    }
    long last = journal(id).getLast().id();
    try (SseClient caughtUp = SseClient.open(h, "/api/runs/" + id + "/events", String.valueOf(last))) {
      caughtUp.awaitEnd(WAIT);
      assertThat(caughtUp.frames).isEmpty();
    }
    assertThat(h.post("/api/runs/" + id + "/resume", ServerHarness.map("approve", true)).status()).isEqualTo(200);
    h.awaitStatus(id, "completed");
    try (SseClient rest = SseClient.open(h, "/api/runs/" + id + "/events", String.valueOf(last))) {
      rest.awaitEnd(WAIT);
      assertThat(rest.frames.getFirst().event()).isEqualTo("run.resumed");
      assertThat(rest.frames.getLast().event()).isEqualTo("run.finished");
      assertThat(rest.frames).isEqualTo(journal(id).subList((int) last, journal(id).size()));
    }
  }

  @Test
  void aClientReconnectingWithLastEventIdMidRunMissesNothingAndGetsNothingTwice() throws Exception {
    Path gate = tmp.resolve("gate-reconnect");
    String id = start(Fixtures.LOOPING, gate);
    List<SseClient.Frame> seen = new ArrayList<>();
    try (SseClient first = SseClient.open(h, "/api/runs/" + id + "/events", null)) {
      first.await(f -> "node.started".equals(f.event()), WAIT);
      Fixtures.release(gate);
      first.await(f -> "loop.iteration".equals(f.event()) && f.data().contains("\"iteration\":2"), WAIT);
      first.close();
      seen.addAll(first.durable());
    }
    String lastId = String.valueOf(seen.getLast().id());
    try (SseClient second = SseClient.open(h, "/api/runs/" + id + "/events", lastId)) {
      second.await(f -> "loop.iteration".equals(f.event()) && f.data().contains("\"iteration\":4"), WAIT);
      second.close();
      seen.addAll(second.durable());
    }
    try (SseClient third = SseClient.open(h, "/api/runs/" + id + "/events?after=" + seen.getLast().id(), null)) {
      third.awaitEnd(WAIT);
      seen.addAll(third.durable());
    }
    assertStrictlyIncreasing(seen);
    assertThat(seen).isEqualTo(journal(id));
    assertThat(seen.getLast().event()).isEqualTo("run.finished");
  }

  @Test
  void severalClientsOfARunningLoopSeeIdenticalSequences() throws Exception {
    Path gate = tmp.resolve("gate-many");
    String id = start(Fixtures.LOOPING, gate);
    List<SseClient> clients = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        SseClient c = SseClient.open(h, "/api/runs/" + id + "/events", null);
        c.await(f -> "node.started".equals(f.event()), WAIT);
        clients.add(c);
      }
      Fixtures.release(gate);
      clients.getFirst().await(f -> "loop.iteration".equals(f.event()), WAIT);
      SseClient late = SseClient.open(h, "/api/runs/" + id + "/events", null);
      clients.add(late);
      for (SseClient c : clients) {
        c.awaitEnd(WAIT);
      }
      List<SseClient.Frame> expected = journal(id);
      for (SseClient c : clients) {
        assertThat(c.durable()).isEqualTo(expected);
      }
    } finally {
      clients.forEach(SseClient::close);
    }
  }

  @Test
  void anIdleStreamGetsHeartbeats() throws Exception {
    Path gate = tmp.resolve("gate-idle");
    String id = start(Fixtures.GATED, gate);
    try (SseClient c = SseClient.open(h, "/api/runs/" + id + "/events", null)) {
      c.await(f -> "node.started".equals(f.event()) && f.data().contains("\"node\":\"wait\""), WAIT);
      long until = System.nanoTime() + WAIT.toNanos();
      while (c.comments.get() < 2 && System.nanoTime() < until) {
        Fixtures.sleep(Duration.ofMillis(50));
      }
      assertThat(c.comments.get()).isGreaterThanOrEqualTo(2);
      assertThat(c.hasEnded()).isFalse();
      Fixtures.release(gate);
      c.awaitEnd(WAIT);
      assertThat(c.durable()).isEqualTo(journal(id));
    }
  }

  @Test
  void streamedTextIsDeliveredLiveWithoutIds() throws Exception {
    Path gate = tmp.resolve("gate-stream");
    String id = start(Fixtures.STREAMING, gate);
    try (SseClient c = SseClient.open(h, "/api/runs/" + id + "/events", null)) {
      c.await(f -> "node.started".equals(f.event()), WAIT);
      Fixtures.release(gate);
      c.awaitEnd(WAIT);
      List<SseClient.Frame> streamed = c.frames.stream().filter(f -> "node.streaming".equals(f.event())).toList();
      assertThat(streamed).isNotEmpty().allMatch(f -> f.id() == null);
      StringBuilder text = new StringBuilder();
      for (SseClient.Frame f : streamed) {
        text.append(ServerHarness.JSON.readTree(f.data()).path("tokens").asText());
      }
      assertThat(text.toString()).isEqualTo("a reply streamed in several pieces to whoever watches");
      assertThat(c.durable()).isEqualTo(journal(id));
      assertThat(journal(id)).noneMatch(f -> "node.streaming".equals(f.event()));
      // Streamed text comes between the durable events it happened between: after the node started.
      int startedTalk = -1;
      int firstStreamed = -1;
      for (int i = 0; i < c.frames.size(); i++) {
        SseClient.Frame f = c.frames.get(i);
        if (startedTalk < 0 && "node.started".equals(f.event()) && f.data().contains("\"node\":\"talk\"")) {
          startedTalk = i;
        }
        if (firstStreamed < 0 && "node.streaming".equals(f.event())) {
          firstStreamed = i;
        }
      }
      assertThat(firstStreamed).isGreaterThan(startedTalk);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"abc", "-1", "1.5", "99999999999999999999", "1e3"})
  void aBadLastEventIdIsABadRequest(String value) throws Exception {
    String id = start(Fixtures.QUICK, null);
    try (SseClient c = SseClient.open(h, "/api/runs/" + id + "/events", value)) {
      assertThat(c.status).isEqualTo(400);
      assertThat(c.errorBody()).contains("Last-Event-ID");
    }
    ServerHarness.Response r = h.get("/api/runs/" + id + "/events?after=" + value.replace("+", "%2B"));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().path("error").path("field").asText()).isEqualTo("after");
  }
}
