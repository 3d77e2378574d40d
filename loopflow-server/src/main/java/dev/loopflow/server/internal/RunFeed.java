package dev.loopflow.server.internal;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.EventListener;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/*
 * Design note: the live event feed of one run while this process executes it.
 *
 * Why it exists. A durable store may buffer journal writes of events until the next node completion, and streamed
 * model text (node.streaming) is never journaled at all; a viewer of a running run needs both as they happen. The
 * engine calls this listener for every event, in sequence order, on the run's thread and under its event bus's lock
 * (so every listener sees one order). Each event is turned into its server-sent-event frame once, here, and the
 * same bytes go to every subscriber.
 *
 * How a stream gets every event exactly once and in order (EventStream does the reading):
 *   1. subscribe() registers the subscriber's queue under this feed's lock, primed with the most recent frames.
 *      Every frame published after that is offered to the queue.
 *   2. The stream reads the journal after its Last-Event-ID. The engine journals an event before it calls
 *      listeners, so the journal (flushed first) holds every durable event published before step 1.
 *   3. The stream drains the queue, skipping every durable frame at or below the last id it sent, and every
 *      ephemeral frame older than that (an ephemeral frame carries the number of the durable event before it).
 *
 * What must stay true:
 *   - onEvent never blocks and never throws because of a subscriber: it runs on the engine's thread, and a listener
 *     that throws is detached from the run. A subscriber whose queue is full is dropped instead (its queue is
 *     cleared and marked overflowed, and its stream ends); the client reconnects with Last-Event-ID and reads what it
 *     missed from the journal, so nothing is lost.
 *   - A subscriber is dropped only once it is queueCapacity live frames behind: its queue also has room for the
 *     frames it was primed with.
 *   - The queue always has room for the end marker: frames are offered only while more than one slot is free, and
 *     the feed is the only producer (under its lock), so the check and the offer cannot race.
 *   - After close() no subscriber waits for frames that will never come: each gets the end marker, and subscribe()
 *     answers null, so a late stream reads the journal instead.
 */
final class RunFeed implements EventListener {
  /** Frames a new subscriber is primed with: what it may need if the journal lags behind. */
  static final int RECENT = 512;

  private final String runId;
  private final int queueCapacity;
  private final SseFrames frames;
  private final ArrayDeque<SseFrames.Frame> recent = new ArrayDeque<>();
  private final List<Subscription> subscribers = new ArrayList<>();
  private final CountDownLatch firstEvent = new CountDownLatch(1);
  private boolean closed;

  RunFeed(String runId, int queueCapacity, SseFrames frames) {
    this.runId = runId;
    this.queueCapacity = Math.max(2, queueCapacity);
    this.frames = frames;
  }

  String runId() {
    return runId;
  }

  @Override
  public synchronized void onEvent(Event event) {
    if (closed) {
      return;
    }
    SseFrames.Frame f = frames.of(event);
    recent.addLast(f);
    if (recent.size() > RECENT) {
      recent.removeFirst();
    }
    for (int i = 0; i < subscribers.size(); i++) {
      Subscription s = subscribers.get(i);
      if (!s.offer(f)) {
        subscribers.remove(i--);
        s.overflow();
      }
    }
    firstEvent.countDown();
  }

  /** A new subscriber primed with the recent frames, or null when the execution has ended. */
  synchronized Subscription subscribe() {
    if (closed) {
      return null;
    }
    // The primer gets room of its own: it is not lag (the stream replays those events from the journal and skips
    // them), so it must not use the queue's budget. Otherwise a queue no larger than the primer would be full before
    // the first live frame, and every stream of a busy run would be cut off at once.
    Subscription s = new Subscription(queueCapacity + recent.size());
    for (SseFrames.Frame f : recent) {
      s.offer(f);
    }
    subscribers.add(s);
    return s;
  }

  synchronized void unsubscribe(Subscription s) {
    subscribers.remove(s);
  }

  /** The execution ended: every subscriber gets the end marker once its queue drains. */
  synchronized void close() {
    closed = true;
    for (Subscription s : subscribers) {
      s.end();
    }
    subscribers.clear();
    firstEvent.countDown();
  }

  /** Waits until the run published its first event (its record exists then) or the feed closed. */
  boolean awaitFirstEvent(Duration d) throws InterruptedException {
    return firstEvent.await(d.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** One stream's queue. Frames are taken by the stream's own thread only. */
  static final class Subscription {
    private static final SseFrames.Frame END = new SseFrames.Frame(-1, "", new byte[0], true);
    private final ArrayBlockingQueue<SseFrames.Frame> queue;
    private volatile boolean overflowed;
    private volatile boolean ended;

    Subscription(int capacity) {
      this.queue = new ArrayBlockingQueue<>(capacity + 1);
    }

    /** False when the queue is full (keeping the last slot for the end marker). */
    private boolean offer(SseFrames.Frame f) {
      return queue.remainingCapacity() > 1 && queue.offer(f);
    }

    private void overflow() {
      overflowed = true;
      queue.clear();
      end();
    }

    private void end() {
      ended = true;
      queue.offer(END);
    }

    /**
     * The next frame, waiting up to {@code timeout}; null on timeout. After the end marker (the execution ended, or
     * this subscriber fell behind) it answers {@link #isEnd} frames only.
     */
    SseFrames.Frame poll(Duration timeout) throws InterruptedException {
      SseFrames.Frame f = queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
      if (f == END) {
        queue.offer(END); // keep answering the end
      }
      return f;
    }

    static boolean isEnd(SseFrames.Frame f) {
      return f == END;
    }

    /** Whether this subscriber was dropped for falling too far behind. */
    boolean overflowed() {
      return overflowed;
    }

    boolean ended() {
      return ended;
    }
  }
}
