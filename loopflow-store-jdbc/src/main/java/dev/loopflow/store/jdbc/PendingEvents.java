package dev.loopflow.store.jdbc;

import dev.loopflow.core.event.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Events appended and not written yet, in the order they were appended. They are written with the next transaction
 * of the store (see JdbcRunStore), or carried by the next logged completion (see LoggedCompletions); what is taken
 * and then not written is put back in front, so the order never changes. Every method holds this buffer's monitor;
 * a caller that also holds the completions' append lock takes that one first.
 */
final class PendingEvents {
  private final List<Event> events = new ArrayList<>();

  synchronized void add(Event event) {
    events.add(event);
  }

  /** Takes {@code event} back out, where it is. */
  synchronized void remove(Event event) {
    events.remove(event);
  }

  synchronized boolean isEmpty() {
    return events.isEmpty();
  }

  /** Every buffered event, which the buffer no longer holds. */
  synchronized List<Event> takeAll() {
    List<Event> taken = new ArrayList<>(events);
    events.clear();
    return taken;
  }

  /**
   * Drops the events of runs that are {@code fenced}; then every buffered event when {@code all}, else none (they
   * stay buffered).
   */
  synchronized List<Event> take(Predicate<String> fenced, boolean all) {
    events.removeIf(e -> fenced.test(e.runId()));
    if (!all) {
      return List.of();
    }
    return takeAll();
  }

  /** Puts events taken earlier back, in front of any appended since. */
  synchronized void putBack(List<Event> taken) {
    events.addAll(0, taken);
  }

  /** Drops the events of {@code runId}: its lease moved, nothing more of it is written from here. */
  synchronized void drop(String runId) {
    events.removeIf(e -> e.runId().equals(runId));
  }
}
