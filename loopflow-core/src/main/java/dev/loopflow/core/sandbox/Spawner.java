package dev.loopflow.core.sandbox;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Starts processes from one long-lived platform thread. Bubblewrap's {@code --die-with-parent} kills the sandbox
 * when the thread that forked it ends (the kernel's parent-death signal follows the forking thread, not the
 * process): forked from a virtual thread's carrier, or from a pool thread that retires when idle, a sandbox could be
 * killed in the middle of its work. This thread lives as long as the JVM, so a sandbox dies with the engine and
 * only then.
 */
final class Spawner {
  private Spawner() {}

  private static final ExecutorService THREAD = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "loopflow-process-spawner");
    t.setDaemon(true);
    return t;
  });

  static Process start(ProcessBuilder pb) throws IOException, InterruptedException {
    Future<Process> f = THREAD.submit(pb::start);
    try {
      return f.get();
    } catch (InterruptedException e) {
      // Starting takes milliseconds: wait for it, then end what it started, so an interrupt never leaks a process.
      try {
        Process p = f.get();
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      } catch (ExecutionException ignored) {
        // it did not start
      }
      throw e;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(e.getCause());
    }
  }
}
