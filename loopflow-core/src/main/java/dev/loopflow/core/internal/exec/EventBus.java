package dev.loopflow.core.internal.exec;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.EventListener;
import dev.loopflow.core.secrets.Redactor;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Orders a run's events: sequence numbers are assigned and listeners called under one lock, so every
 * subscriber sees the same order. A durable event takes the next sequence number and goes to the journal first; an
 * {@linkplain Event#ephemeral() ephemeral} one (streamed tokens) goes to the listeners only and carries the number
 * of the durable event before it, so the journal's numbers have no gaps. Every subscriber (the journal, the JSONL file, live progress, a library's
 * listener) gets the event with credentials masked by the run's redactor: no listener ever sees one.
 *
 * <p>No listener failure is silent. The journal's listener is special: durability is a promise, so its failure is
 * handed to {@code onJournalFailure}, which fails the run. Any other listener that throws is an observer the run
 * does not depend on: it is detached from this run (so it is not called again half-broken) and a
 * {@code listener.failed} event naming it is published to the journal and the remaining listeners.
 */
final class EventBus {
  private final String runId;
  private final List<EventListener> listeners = new ArrayList<>();
  /** Registration numbers, 1-based in the order the caller gave the listeners; they name a failed listener. */
  private final List<Integer> numbers = new ArrayList<>();
  private final Clock clock;
  private final Redactor redactor;
  private EventListener journal;
  private Consumer<Throwable> onJournalFailure;
  private long seq;
  private boolean closed;

  EventBus(String runId, Clock clock, List<EventListener> initial, long lastSeq, Redactor redactor) {
    this.runId = runId;
    this.clock = clock;
    this.redactor = redactor;
    this.seq = lastSeq;
    for (EventListener l : initial) {
      listeners.add(l);
      numbers.add(listeners.size());
    }
  }

  /** After the run has finished nothing more is published: a node that ignored its interrupt stays silent. */
  synchronized void close() {
    closed = true;
  }

  /** The journal's listener: called first for every event; a failure goes to {@code onFailure}, never ignored. */
  synchronized void journal(EventListener l, Consumer<Throwable> onFailure) {
    this.journal = l;
    this.onJournalFailure = onFailure;
  }

  interface Factory {
    Event make(long seq, Instant at);
  }

  synchronized void publish(Factory factory) {
    if (closed) {
      return;
    }
    Instant at = clock.instant();
    Event e = factory.make(seq + 1, at);
    if (e.ephemeral()) {
      e = factory.make(seq, at); // numbered after the durable event before it; consumes no number
    } else {
      seq++;
    }
    e = redactor.event(e);
    report(deliver(e));
  }

  /** A failure is reported after the event that caused it; reporting one may detach another listener in turn. */
  private void report(List<Event> failures) {
    while (!failures.isEmpty()) {
      List<Event> next = new ArrayList<>();
      for (Event f : failures) {
        next.addAll(deliver(f));
      }
      failures = next;
    }
  }

  /**
   * Publishes a durable event that {@code journalWith} journals, instead of the journal's listener, together with a
   * write of its own (a run's final record with its run.finished, in one transaction): the event takes the next
   * number, {@code journalWith} runs, and only once it has returned do the other listeners see the event, so none
   * sees it before it is durable. When {@code journalWith} throws, nothing is delivered and the number is not used.
   * Returns false, calling nothing, once the bus is closed.
   */
  synchronized boolean publishJournaled(Factory factory, Consumer<Event> journalWith) {
    if (closed) {
      return false;
    }
    Event e = redactor.event(factory.make(seq + 1, clock.instant()));
    journalWith.accept(e);
    seq++;
    report(deliverToListeners(e));
    return true;
  }

  /** Calls every listener; returns the {@code listener.failed} events for those that threw (now detached). */
  private List<Event> deliver(Event e) {
    if (journal != null && !e.ephemeral()) {
      try {
        journal.onEvent(e);
      } catch (VirtualMachineError fatal) {
        throw fatal;
      } catch (Throwable ex) {
        onJournalFailure.accept(ex);
      }
    }
    return deliverToListeners(e);
  }

  /** {@link #deliver} without the journal. */
  private List<Event> deliverToListeners(Event e) {
    List<Event> failed = List.of();
    for (int i = 0; i < listeners.size(); i++) {
      EventListener l = listeners.get(i);
      try {
        l.onEvent(e);
      } catch (VirtualMachineError fatal) {
        throw fatal;
      } catch (Throwable ex) {
        String name = "listener " + numbers.get(i) + " (" + typeName(l) + ")";
        listeners.remove(i);
        numbers.remove(i);
        i--;
        if (failed.isEmpty()) {
          failed = new ArrayList<>();
        }
        failed.add(redactor.event(new Event.ListenerFailed(runId, ++seq, clock.instant(), name, e.type(),
            Throwables.describe(ex))));
      }
    }
    return failed;
  }

  /** A readable class name: lambdas and anonymous classes are named after the class that declares them. */
  private static String typeName(EventListener l) {
    String n = l.getClass().getName();
    int lambda = n.indexOf("$$Lambda");
    return lambda >= 0 ? n.substring(0, lambda) : n;
  }

  Instant now() {
    return clock.instant();
  }
}
