package dev.loopflow.core.internal.exec;

/** How the engine names an unexpected exception in a run's error: its class's simple name and its message. */
final class Throwables {
  private Throwables() {}

  static String describe(Throwable e) {
    String m = e.getMessage();
    return e.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : ": " + m);
  }
}
