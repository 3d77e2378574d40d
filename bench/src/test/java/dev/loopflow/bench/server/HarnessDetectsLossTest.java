package dev.loopflow.bench.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The client and the checker together, against a stand-in event server that can be made to lose, repeat or reorder
 * events: a faithful server passes, and every fault is caught. This is what makes a passing benchmark mean
 * something: the harness would have noticed.
 */
class HarnessDetectsLossTest {
  static final int EVENTS = 300;
  static final String RUN = "run_fake";

  enum Fault {
    NONE(null),
    SKIPS_AN_EVENT_AFTER_RESUMING("missing"),
    REPEATS_THE_LAST_EVENT_ON_RESUME("duplicated"),
    IGNORES_LAST_EVENT_ID("duplicated"),
    LOSES_A_LIVE_EVENT("1 event missing (seq 150)"),
    SWAPS_TWO_EVENTS("out of order"),
    ALTERS_AN_EVENT("with another type or data"),
    CLOSES_BEFORE_RUN_FINISHED_EVERY_TIME("1 event missing (seq 300)");

    final String reported;

    Fault(String reported) {
      this.reported = reported;
    }
  }

  HttpServer server;
  volatile Fault fault;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/api/runs/" + RUN + "/events", ex -> {
      String last = ex.getRequestHeaders().getFirst("Last-Event-ID");
      long after = last == null ? 0 : Long.parseLong(last);
      boolean resumed = after > 0;
      ex.getResponseHeaders().add("Content-Type", "text/event-stream");
      ex.sendResponseHeaders(200, 0); // chunked, as the real server's stream is
      try (OutputStream out = ex.getResponseBody()) {
        long from = switch (fault) {
          case IGNORES_LAST_EVENT_ID -> 1;
          case REPEATS_THE_LAST_EVENT_ON_RESUME -> resumed ? after : after + 1;
          case SKIPS_AN_EVENT_AFTER_RESUMING -> resumed ? after + 2 : after + 1;
          default -> after + 1;
        };
        for (long seq = from; seq <= EVENTS; seq++) {
          if (fault == Fault.CLOSES_BEFORE_RUN_FINISHED_EVERY_TIME && seq == EVENTS) {
            return;
          }
          if (fault == Fault.LOSES_A_LIVE_EVENT && seq == 150) {
            continue;
          }
          long sent = fault == Fault.SWAPS_TWO_EVENTS && (seq == 100 || seq == 101) ? 201 - seq : seq;
          String data = data(sent) + (fault == Fault.ALTERS_AN_EVENT && sent == 77 ? " " : "");
          out.write(("id: " + sent + "\nevent: " + type(sent) + "\ndata: " + data + "\n\n")
              .getBytes(StandardCharsets.UTF_8));
          if (seq % 10 == 0) {
            out.write(": heartbeat\n\n".getBytes(StandardCharsets.UTF_8));
          }
          out.flush();
        }
      } catch (IOException e) {
        // the client dropped the connection
      }
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  static String type(long seq) {
    return seq == 1 ? "run.started" : seq == EVENTS ? "run.finished" : "node.completed";
  }

  static String data(long seq) {
    return "{\"type\":\"" + type(seq) + "\",\"run_id\":\"" + RUN + "\",\"seq\":" + seq + "}";
  }

  static Journal journal() {
    List<Journal.Entry> entries = new ArrayList<>();
    for (long seq = 1; seq <= EVENTS; seq++) {
      entries.add(new Journal.Entry(seq, type(seq), SseParser.hashOf(data(seq)), 0));
    }
    return Journal.of(RUN, entries);
  }

  @ParameterizedTest
  @EnumSource(Fault.class)
  void aFaithfulServerPassesAndEveryFaultIsCaught(Fault f) throws Exception {
    fault = f;
    URI base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    long ms = 1_000_000L;
    // Drops after given events, not at given moments: however slowly this machine runs, every drop falls inside the
    // stream. The deadline is a hang guard only (a server that never sends run.finished is caught well before it, by
    // the client's bound on server closes).
    SseClient c = new SseClient(1, SseClient.Kind.RECONNECT, 0, new long[0], new long[] {20 * ms, 0, 50 * ms})
        .droppingAfter(50, 130, 210);
    long deadline = WallClock.epochNanos() + Duration.ofSeconds(120).toNanos();
    c.run(base, "t", RUN, deadline);
    List<String> problems = StreamCheck.check(journal(), c);
    if (f == Fault.NONE) {
      assertThat(problems).isEmpty();
      assertThat(c.connections()).hasSize(4);
      assertThat(c.connections()).extracting(SseClient.Connection::reason).containsExactly(SseClient.Reason.FIRST,
          SseClient.Reason.AFTER_DROP, SseClient.Reason.AFTER_DROP, SseClient.Reason.AFTER_DROP);
    } else {
      assertThat(problems).anySatisfy(p -> assertThat(p).contains(f.reported));
    }
  }

  @ParameterizedTest
  @EnumSource(value = Fault.class, names = "NONE")
  void aStreamEndedByTheServerIsResumedFromTheLastId(Fault f) throws Exception {
    fault = f;
    // A client that joins after the whole journal was written still receives all of it, once.
    URI base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    SseClient c = new SseClient(2, SseClient.Kind.JOIN, 0, new long[0], new long[0]);
    c.run(base, "t", RUN, WallClock.epochNanos() + Duration.ofSeconds(30).toNanos());
    assertThat(StreamCheck.check(journal(), c)).isEmpty();
    assertThat(c.serverCloses()).isZero();
  }
}
