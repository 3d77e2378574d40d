package dev.loopflow.bench.server;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One viewer of a run's live events, behaving as a browser's EventSource does: it connects, reads frames, and when
 * its connection ends before {@code run.finished} it connects again with {@code Last-Event-ID} set to the last id it
 * received. It records every frame it was given (sequence number, type, a hash of the data, when it arrived) and
 * every connection, for {@link StreamCheck} to compare with the journal afterwards.
 *
 * <p>A client may be told to join late ({@code joinAt}) and to drop its connection at given moments ({@code dropAt},
 * each followed by a pause before it reconnects): the drop closes the socket from another thread wherever the stream
 * is, possibly inside a frame, which is then lost for this connection, exactly as with a real network failure.
 * A client may instead drop right after given events ({@link #droppingAfter}): the same drop at a point of the stream
 * rather than of the clock, for checks that must not depend on how fast the machine is.
 */
final class SseClient {
  /** When the client connects, and whether it drops its connection on purpose. */
  enum Kind {
    /** Connects as the run starts and stays. */
    START,
    /** Connects while the run is under way, with no Last-Event-ID: it must get the whole run, replayed then live. */
    JOIN,
    /** Connects as the run starts and drops its connection at random moments, resuming with Last-Event-ID. */
    RECONNECT,
    /**
     * Connects as the run starts and stops reading for a while at given moments, with a small socket receive buffer
     * so that the server's writes to it block: a viewer on a slow network. A server may end such a stream when it
     * falls too far behind; the client then resumes with Last-Event-ID.
     */
    STALL
  }

  /** The receive buffer of a {@link Kind#STALL} client's socket, small so that a stall reaches the server soon. */
  static final int STALL_RECEIVE_BUFFER = 4096;

  /** Why a connection was opened. */
  enum Reason { FIRST, AFTER_DROP, AFTER_SERVER_CLOSE }

  /** One connection: when it was opened, the index of its first delivery, the Last-Event-ID it sent. */
  record Connection(Reason reason, long openedAt, int firstDelivery, long lastEventId) {}

  private static final Map<String, String> TYPES = new ConcurrentHashMap<>();
  /** How long a stream may stay open after it delivered run.finished before that counts as a failure. */
  static final Duration CLOSE_AFTER_FINISH = Duration.ofSeconds(10);

  final int id;
  final Kind kind;
  private final long joinAt;
  private final long[] dropAt;
  private final long[] pauseNanos;
  private long[] dropAfterSeq = new long[0];
  private int seqDrops;
  // Set by a drop after an event, on the reading thread; cleared when the next connection opens.
  private boolean droppedHere;
  private long[] stallAt = new long[0];
  private long[] stallNanos = new long[0];
  private int stalls;

  // Written by the client's own thread only; read by the checker after the thread ended.
  private long[] seqs = new long[1024];
  private long[] received = new long[1024];
  private long[] hashes = new long[1024];
  private String[] types = new String[1024];
  private int count;
  private int ephemeral;
  private int serverCloses;
  private int drops;
  private final List<Connection> connections = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();
  private volatile boolean finished;
  private volatile long finishedAt;
  private long lastSeq;

  private volatile SseConnection current;
  private volatile boolean dropping;
  private volatile String cutBecause;

  SseClient(int id, Kind kind, long joinAt, long[] dropAt, long[] pauseNanos) {
    this.id = id;
    this.kind = kind;
    this.joinAt = joinAt;
    this.dropAt = dropAt.clone();
    this.pauseNanos = pauseNanos.clone();
  }

  /**
   * Makes this client drop its connection right after it received each of the events {@code seqs} (ascending),
   * then pause as after a timed drop and resume with Last-Event-ID.
   */
  SseClient droppingAfter(long... seqs) {
    this.dropAfterSeq = seqs.clone();
    return this;
  }

  /** Makes this client stop reading at the moments {@code at} (epoch nanos) for {@code nanos} each. */
  SseClient stalling(long[] at, long[] nanos) {
    this.stallAt = at.clone();
    this.stallNanos = nanos.clone();
    return this;
  }

  /** Follows the run until its stream closes after run.finished, or {@code deadline} (epoch nanos) passes. */
  void run(URI base, String token, String runId, long deadline) {
    try {
      WallClock.sleepUntil(joinAt);
      for (int i = 0; i < dropAt.length; i++) {
        final int drop = i;
        Thread.ofVirtual().start(() -> dropAt(drop));
      }
      Thread watchdog = Thread.ofVirtual().start(() -> watch(deadline));
      try {
        follow(base, token, runId, deadline);
      } finally {
        watchdog.interrupt();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problems.add("interrupted");
    } catch (RuntimeException e) {
      problems.add("client error: " + e);
    }
  }

  private void follow(URI base, String token, String runId, long deadline) throws InterruptedException {
    SseParser parser = new SseParser(this::frame);
    byte[] buf = new byte[8192];
    Reason reason = Reason.FIRST;
    int connectFailures = 0;
    while (true) {
      if (cutBecause != null || WallClock.epochNanos() > deadline) {
        problems.add(cutBecause != null ? cutBecause
            : "did not receive run.finished before the deadline (last id " + lastSeq + ")");
        return;
      }
      long opened = WallClock.epochNanos();
      SseConnection c;
      try {
        c = SseConnection.open(base, token, runId, lastSeq, kind == Kind.STALL ? STALL_RECEIVE_BUFFER : 0);
      } catch (IOException e) {
        if (++connectFailures > 20) {
          problems.add("could not connect 20 times in a row: " + e);
          return;
        }
        Thread.sleep(100);
        continue;
      }
      connectFailures = 0;
      if (c.status() != 200 || !c.contentType().startsWith("text/event-stream")) {
        String body;
        try {
          body = c.readRest();
        } catch (IOException e) {
          body = "(unreadable: " + e + ")";
        } finally {
          c.close();
        }
        problems.add("HTTP " + c.status() + " (" + c.contentType() + "): " + body);
        return;
      }
      connections.add(new Connection(reason, opened, count, lastSeq));
      parser.reset();
      droppedHere = false;
      current = c;
      boolean ended = false;
      try {
        for (int n = c.read(buf); n >= 0; n = c.read(buf)) {
          parser.feed(buf, 0, n);
          if (stalls < stallAt.length && WallClock.epochNanos() >= stallAt[stalls]) {
            Thread.sleep(Duration.ofNanos(stallNanos[stalls++]));
          }
        }
        ended = true;
      } catch (IOException e) {
        // cut: by this client's own drop, or by the network or server
      } finally {
        current = null;
        c.close();
      }
      if (cutBecause != null) {
        problems.add(cutBecause);
        return;
      }
      if (finished) {
        return;
      }
      if (dropping) {
        dropping = false;
        Thread.sleep(Duration.ofNanos(pauseNanos[Math.min(drops++, pauseNanos.length - 1)]));
        reason = Reason.AFTER_DROP;
      } else {
        // The server ended the stream before run.finished (by design when a viewer falls too far behind):
        // counted, and resumed at once as a browser would.
        serverCloses++;
        if (serverCloses > 1000) {
          problems.add("the server closed the stream 1000 times before run.finished" + (ended ? "" : " (reset)"));
          return;
        }
        reason = Reason.AFTER_SERVER_CLOSE;
      }
    }
  }

  /** Cuts a stream that stays open after run.finished, or any stream at the deadline. */
  private void watch(long deadline) {
    try {
      while (true) {
        Thread.sleep(100);
        long now = WallClock.epochNanos();
        String why = finished && now - finishedAt > CLOSE_AFTER_FINISH.toNanos()
            ? "the stream stayed open " + CLOSE_AFTER_FINISH.toSeconds() + " s after run.finished"
            : now > deadline ? "did not receive run.finished before the deadline (connection open)" : null;
        SseConnection c = current;
        if (why != null && c != null) {
          cutBecause = why;
          c.close();
        }
      }
    } catch (InterruptedException e) {
      // the client is done
    }
  }

  private void dropAt(int i) {
    try {
      WallClock.sleepUntil(dropAt[i]);
      SseConnection c = current;
      if (c != null && !finished) {
        dropping = true;
        c.close();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The parser's sink: records one frame as received now. */
  void frame(String id, String type, long hash, int length, String data) {
    if (droppedHere) {
      return;
    }
    long now = WallClock.epochNanos();
    if (id == null) {
      ephemeral++;
      return;
    }
    long seq;
    try {
      seq = Long.parseLong(id);
    } catch (NumberFormatException e) {
      problems.add("a frame's id is not a number: '" + id + "'");
      return;
    }
    if (count == seqs.length) {
      int n = count * 2;
      seqs = Arrays.copyOf(seqs, n);
      received = Arrays.copyOf(received, n);
      hashes = Arrays.copyOf(hashes, n);
      types = Arrays.copyOf(types, n);
    }
    seqs[count] = seq;
    received[count] = now;
    hashes[count] = hash;
    types[count] = TYPES.computeIfAbsent(type, t -> t);
    count++;
    lastSeq = seq;
    if ("run.finished".equals(type)) {
      finishedAt = now;
      finished = true;
    }
    SseConnection c = current;
    if (seqDrops < dropAfterSeq.length && seq >= dropAfterSeq[seqDrops] && c != null && !finished) {
      // Closed on the reading thread; the frames after this one in the same read are lost with the connection.
      seqDrops++;
      droppedHere = true;
      dropping = true;
      c.close();
    }
  }

  int deliveries() {
    return count;
  }

  long seq(int i) {
    return seqs[i];
  }

  long receivedAt(int i) {
    return received[i];
  }

  long hash(int i) {
    return hashes[i];
  }

  String type(int i) {
    return types[i];
  }

  int ephemeral() {
    return ephemeral;
  }

  int serverCloses() {
    return serverCloses;
  }

  List<Connection> connections() {
    return connections;
  }

  List<String> problems() {
    return problems;
  }

  String describe() {
    long drops = connections.stream().filter(c -> c.reason() == Reason.AFTER_DROP).count();
    return "client " + id + " (" + kind.name().toLowerCase(java.util.Locale.ROOT)
        + (drops > 0 ? ", " + drops + " reconnects" : "")
        + (serverCloses > 0 ? ", " + serverCloses + " closed by the server" : "") + ")";
  }
}
