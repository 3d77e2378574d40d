package dev.loopflow.server.internal;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.JournalSlice;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/*
 * Design note: one client's stream of a run's events (GET /api/runs/{id}/events), written on the request's own
 * (virtual) thread until the stream ends.
 *
 * Two sources, one order. Every event is sent at most once, in sequence order, and none is skipped:
 *   - A run this process executes has a live feed (RunFeed). The stream subscribes first, then replays the journal
 *     after the client's last id, then drains its queue, skipping what the replay already sent (see RunFeed for why
 *     this loses nothing). Streamed text (ephemeral events, no id) comes only through the feed.
 *   - A run executed elsewhere (a command line on the same store), or one whose execution here ends while the stream
 *     is open, is followed by reading the journal every POLL: whatever has a sequence number above the last sent.
 *
 * When it ends. For a live feed: when the execution ends (after run.finished, or once the run has paused and its
 * running nodes settled), or when this subscriber fell behind (its queue overflowed; the client reconnects with
 * Last-Event-ID). While following the journal: once the run is paused (a paused record is written together with
 * every event before it), or has ended and its run.finished event was sent (that event is journaled just after the
 * final record, so a short grace covers a writer that has not flushed it yet). Also when the client goes away (a
 * write fails; a comment line is written every heartbeat interval, so an idle stream notices too) or the server
 * stops. A run journaled as running that no process executes (its process died) is followed until it is resumed and
 * ends, or the client leaves.
 *
 * A replay writes its events and flushes once: a flush per event made a long journal's replay cost a network write
 * per event. A client may ask for the first replay to be windowed to each loop's recent passes (JournalSlice); a
 * resumed stream (Last-Event-ID) never is, as its client already holds what came before.
 */
final class EventStream {
  static final Duration POLL = Duration.ofMillis(250);
  /** How long a run that has ended may take to journal its run.finished event. */
  static final Duration FINISH_GRACE = Duration.ofSeconds(2);

  private final RunStore store;
  private final SseFrames frames;
  private final String runId;
  private final Duration heartbeat;
  private final BooleanSupplier stopping;
  private final OutputStream out;
  private final Consumer<String> log;
  /** The window of recent passes the first replay keeps ({@link JournalSlice#recentPasses}); 0 sends all. */
  private int recentPasses;
  private long lastSent;
  private String lastType;
  private long lastWrite = System.nanoTime();

  EventStream(RunStore store, SseFrames frames, String runId, long lastId, int recentPasses, Duration heartbeat,
      BooleanSupplier stopping, OutputStream out, Consumer<String> log) {
    this.log = log;
    this.recentPasses = lastId > 0 ? 0 : recentPasses;
    this.store = store;
    this.frames = frames;
    this.runId = runId;
    this.lastSent = lastId;
    this.heartbeat = heartbeat;
    this.stopping = stopping;
    this.out = out;
  }

  /** Streams until the run stops, the client leaves or the server stops. {@code feed}: the live feed, or null. */
  void run(RunFeed feed) throws InterruptedException {
    try {
      RunFeed.Subscription sub = feed == null ? null : feed.subscribe();
      if (sub != null) {
        try {
          if (live(sub)) {
            return;
          }
        } finally {
          feed.unsubscribe(sub);
        }
      }
      followJournal();
    } catch (IOException gone) {
      // The client went away: nothing to do, the run does not depend on its viewers.
    } catch (RuntimeException e) {
      // The store failed while the stream was open: the status line is long sent, so the stream says why in a
      // comment and ends; the client reconnects with its last id.
      log.accept("loopflow server: the event stream of run " + runId + " stopped: " + e);
      try {
        out.write((": the stream stopped: " + ApiError.oneLine(String.valueOf(e.getMessage())) + "\n\n")
            .getBytes(StandardCharsets.UTF_8));
        out.flush();
      } catch (IOException | RuntimeException ignored) {
        // the client is gone too
      }
    }
  }

  /** The live phase; true when the stream is done, false when the feed ended and the journal takes over. */
  private boolean live(RunFeed.Subscription sub) throws IOException, InterruptedException {
    replayJournal();
    while (!stopping.getAsBoolean()) {
      SseFrames.Frame f = sub.poll(heartbeat);
      if (f == null) {
        beat();
        continue;
      }
      if (RunFeed.Subscription.isEnd(f)) {
        // Fell behind: end now, the client resumes from its last id. Execution ended: everything it published
        // was queued before the end marker, so the stream is complete.
        return sub.overflowed() || ended(lastType);
      }
      if (f.ephemeral() ? f.seq() < lastSent : f.seq() <= lastSent) {
        continue;
      }
      write(f);
    }
    return true;
  }

  /** Follows a run through its journal alone. */
  private void followJournal() throws IOException, InterruptedException {
    long graceUntil = 0;
    while (!stopping.getAsBoolean()) {
      // The status first: every event journaled before it changed is then in the read that follows.
      RunStatus status = store.findRun(runId).map(RunRecord::status).orElse(null);
      replayJournal();
      if (status == null || status == RunStatus.PAUSED) {
        return;
      }
      if (status.isTerminal()) {
        if (ended(lastType)) {
          return;
        }
        long now = System.nanoTime();
        if (graceUntil == 0) {
          graceUntil = now + FINISH_GRACE.toNanos();
        } else if (now - graceUntil > 0) {
          return;
        }
      } else {
        graceUntil = 0;
      }
      Thread.sleep(POLL.toMillis());
      if (System.nanoTime() - lastWrite >= heartbeat.toNanos()) {
        beat();
      }
    }
  }

  /** Sends the journal's events after the last one sent. */
  private void replayJournal() throws IOException {
    store.flush();
    if (lastType == null && lastSent > 0) {
      // A client resuming from an id: the type of that event tells whether the run was already over for it.
      List<Event> from = store.events(runId, lastSent - 1);
      if (!from.isEmpty() && from.getFirst().seq() == lastSent) {
        lastType = from.getFirst().type();
      }
      for (Event e : from) {
        if (e.seq() > lastSent) {
          send(frames.of(e));
        }
      }
      out.flush();
      return;
    }
    List<Event> events;
    if (recentPasses > 0) {
      // Only the first replay is windowed (it starts from nothing): what comes later is new to the client, and it
      // asks for older passes itself.
      events = store.events(runId, JournalSlice.recentPasses(recentPasses));
      recentPasses = 0;
    } else {
      events = store.events(runId, lastSent);
    }
    for (Event e : events) {
      send(frames.of(e));
    }
    if (!events.isEmpty()) {
      out.flush();
    }
  }

  private static boolean ended(String type) {
    return "run.finished".equals(type);
  }

  private void write(SseFrames.Frame f) throws IOException {
    send(f);
    out.flush();
  }

  /** Writes a frame without flushing: a replay flushes once at its end, not once per event. */
  private void send(SseFrames.Frame f) throws IOException {
    out.write(f.bytes());
    lastWrite = System.nanoTime();
    if (!f.ephemeral()) {
      lastSent = f.seq();
      lastType = f.type();
    }
  }

  private void beat() throws IOException {
    out.write(SseFrames.HEARTBEAT);
    out.flush();
    lastWrite = System.nanoTime();
  }
}
