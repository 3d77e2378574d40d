package dev.loopflow.core.internal.exec;

import dev.loopflow.core.secrets.Redactor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * The text one node execution streams, turned into {@code node.streaming} events: deltas are coalesced so that a
 * long or fast reply does not flood listeners, and masked across their boundaries ({@link Redactor.Stream}).
 *
 * <p>Text is taken (and published, unless all of it must still be kept back) when a delta arrives and
 * {@link #INTERVAL} has passed since text was last taken in this execution, or at once when {@link #MAX_WAITING}
 * characters are waiting; what is left is published when the reply ends. So there are at most one event per
 * interval plus one per {@code MAX_WAITING} characters, and a reply's events, joined, are its text (masked). Time is the engine's clock: under a clock that does not move, only size
 * and the end of a reply publish, which tests rely on. Nothing runs on a timer: text that arrives just before a
 * pause is published with the next delta or at the end of the reply.
 */
final class StreamedText {
  static final Duration INTERVAL = Duration.ofMillis(100);
  static final int MAX_WAITING = 8192;

  /** Makes the event of {@code text} in reply {@code reply}. */
  interface Events {
    EventBus.Factory event(int reply, String text);
  }

  private final EventBus bus;
  private final Clock clock;
  private final Redactor redactor;
  private final Events events;
  private Redactor.Stream mask;
  private int reply = 1;
  /** When text was last taken (whether or not any could be published yet). */
  private Instant tried;
  /** Waiting characters that publish without waiting for the interval; doubles when nothing could be taken. */
  private int enough = MAX_WAITING;

  StreamedText(EventBus bus, Clock clock, Redactor redactor, Events events) {
    this.bus = bus;
    this.clock = clock;
    this.redactor = redactor;
    this.events = events;
  }

  synchronized void add(String delta) {
    if (mask == null) {
      mask = redactor.stream();
    }
    mask.append(delta);
    Instant now = clock.instant();
    boolean full = mask.pending() >= enough;
    if (full || tried == null || !now.isBefore(tried.plus(INTERVAL))) {
      tried = now;
      String text = mask.take();
      // A long credential still arriving (a private key block) keeps everything back: try again only after as much
      // more, so a reply of many small deltas is not masked over and over.
      enough = !text.isEmpty() ? MAX_WAITING : full ? Math.max(enough, mask.pending()) * 2 : enough;
      publish(text);
    }
  }

  /** The reply ended: the rest of it is published, and the next delta starts the next reply. */
  synchronized void end() {
    if (mask == null) {
      return;
    }
    publish(mask.finish());
    mask = null;
    enough = MAX_WAITING;
    reply++;
  }

  private void publish(String text) {
    if (!text.isEmpty()) {
      bus.publish(events.event(reply, text));
    }
  }
}
