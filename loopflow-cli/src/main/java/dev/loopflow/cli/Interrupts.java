package dev.loopflow.cli;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ctrl-C handling. SIGINT is caught (not left to a shutdown hook) so the run can be cancelled cleanly, its
 * result printed and the documented exit status (1) returned; a second Ctrl-C exits at once.
 */
final class Interrupts {
  private Interrupts() {}

  static void onInterrupt(Runnable action) {
    try {
      AtomicInteger count = new AtomicInteger();
      sun.misc.Signal.handle(new sun.misc.Signal("INT"), sig -> {
        if (count.incrementAndGet() > 1) {
          Runtime.getRuntime().halt(130);
        }
        action.run();
      });
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      Runtime.getRuntime().addShutdownHook(new Thread(action));
    }
  }
}
