package dev.loopflow.core.load;

import java.util.concurrent.TimeUnit;

/** Whether {@code python3} can be started, for tests that assume it. */
public final class PythonAvailable {
  private static Boolean available;

  private PythonAvailable() {}

  public static synchronized boolean python3() {
    if (available == null) {
      try {
        Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        available = p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
      } catch (Exception e) {
        available = false;
      }
    }
    return available;
  }
}
