package dev.loopflow.core.event;

/** Receives a run's events in sequence order, on the thread that produced them; must not block for long. */
@FunctionalInterface
public interface EventListener {
  void onEvent(Event event);
}
