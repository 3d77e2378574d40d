package dev.loopflow.core.internal.exec;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.EventListener;
import dev.loopflow.core.secrets.Redactor;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Orders a run's events: sequence numbers are assigned and listeners called under one lock, so every
 * subscriber sees the same order. A failing listener is dropped from this run rather than failing the run.
 * Every subscriber (the journal, the JSONL file, live progress, a library's listener) gets the event with
 * credentials masked by the run's redactor: no listener ever sees one.
 */
final class EventBus {
  private final List<EventListener> listeners = new CopyOnWriteArrayList<>();
  private final Clock clock;
  private final Redactor redactor;
  private long seq;
  private boolean closed;

  EventBus(Clock clock, List<EventListener> initial, long lastSeq, Redactor redactor) {
    this.clock = clock;
    this.redactor = redactor;
    this.seq = lastSeq;
    listeners.addAll(initial);
  }

  /** After the run has finished nothing more is published: a node that ignored its interrupt stays silent. */
  synchronized void close() {
    closed = true;
  }

  void subscribe(EventListener l) {
    listeners.add(l);
  }

  interface Factory {
    Event make(long seq, Instant at);
  }

  synchronized void publish(Factory factory) {
    if (closed) {
      return;
    }
    Event e = redactor.event(factory.make(++seq, clock.instant()));
    for (EventListener l : listeners) {
      try {
        l.onEvent(e);
      } catch (RuntimeException ex) {
        listeners.remove(l);
      }
    }
  }

  Instant now() {
    return clock.instant();
  }
}
