package dev.loopflow.bench.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * CPU time and resident memory from Linux's /proc: the server process's, this process's (the clients'), and the
 * whole machine's, so that a figure can say how much CPU the server used, how much the clients took from the same
 * cores, and how much other work was running at the time. Resident memory is sampled every 50 ms for its peak over a
 * window. Where /proc is missing every figure is -1.
 */
final class ProcStats implements AutoCloseable {
  /** Linux reports CPU times in USER_HZ ticks, 100 per second on every architecture the JDK runs on. */
  private static final double TICKS_PER_SECOND = 100.0;

  /** What a window used: seconds of CPU, peak resident memory of the server in KiB. */
  record Usage(double wallSeconds, double serverCpuSeconds, double serverSystemSeconds, double clientCpuSeconds,
      double otherCpuSeconds, long serverPeakRssKb) {
    /** The server's CPU in cores (1.0 = one core busy the whole window). */
    double serverCores() {
      return serverCpuSeconds / wallSeconds;
    }

    double otherCores() {
      return otherCpuSeconds / wallSeconds;
    }

    double clientCores() {
      return clientCpuSeconds / wallSeconds;
    }
  }

  private final long pid;
  private final AtomicLong peakRssKb = new AtomicLong(-1);
  private final Thread sampler;
  private volatile boolean closed;

  ProcStats(long pid) {
    this.pid = pid;
    this.sampler = Thread.ofPlatform().daemon().name("rss-sampler").start(this::sample);
  }

  /** Starts measuring a window. */
  Window window() {
    peakRssKb.set(rssKb(pid));
    return new Window(System.nanoTime(), cpuTicks(pid), systemTicks(pid), cpuTicks(ProcessHandle.current().pid()),
        machineBusyTicks());
  }

  /** An open window; {@link #end} gives what it used. */
  final class Window {
    private final long startNanos;
    private final long server;
    private final long serverSystem;
    private final long self;
    private final long machine;

    private Window(long startNanos, long server, long serverSystem, long self, long machine) {
      this.startNanos = startNanos;
      this.server = server;
      this.serverSystem = serverSystem;
      this.self = self;
      this.machine = machine;
    }

    Usage end() {
      double wall = (System.nanoTime() - startNanos) / 1e9;
      long dServer = cpuTicks(pid) - server;
      long dSelf = cpuTicks(ProcessHandle.current().pid()) - self;
      long dMachine = machineBusyTicks() - machine;
      long rss = Math.max(peakRssKb.get(), rssKb(pid));
      return new Usage(wall, dServer / TICKS_PER_SECOND, (systemTicks(pid) - serverSystem) / TICKS_PER_SECOND,
          dSelf / TICKS_PER_SECOND,
          Math.max(0, dMachine - dServer - dSelf) / TICKS_PER_SECOND, rss);
    }
  }

  /** The server's resident-set high-water mark over its whole life (VmHWM), KiB. */
  long lifetimePeakRssKb() {
    return status(pid, "VmHWM:");
  }

  private void sample() {
    while (!closed) {
      long rss = rssKb(pid);
      peakRssKb.accumulateAndGet(rss, Math::max);
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    sampler.interrupt();
  }

  static long rssKb(long pid) {
    return status(pid, "VmRSS:");
  }

  private static long status(long pid, String key) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith(key)) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | RuntimeException e) {
      // the process has gone, or this is not Linux
    }
    return -1;
  }

  /** utime + stime of a process (all its threads), in ticks. */
  static long cpuTicks(long pid) {
    String[] f = stat(pid);
    return f == null ? -1 : Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  /** stime of a process: CPU time spent in the kernel on its behalf (system calls), in ticks. */
  static long systemTicks(long pid) {
    String[] f = stat(pid);
    return f == null ? -1 : Long.parseLong(f[12]);
  }

  /** The fields of /proc/PID/stat after the command name (the process state is [0]), or null. */
  private static String[] stat(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // The command name (field 2) is in parentheses and may hold spaces: fields are counted after its ')'.
      return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Busy ticks of all CPUs of the machine: user, nice, system, irq and softirq (not idle, iowait or steal). */
  static long machineBusyTicks() {
    try {
      String cpu = Files.readAllLines(Path.of("/proc/stat")).getFirst();
      String[] f = cpu.trim().split("\\s+");
      long busy = 0;
      for (int i = 1; i < f.length && i <= 7; i++) {
        if (i != 4 && i != 5) {
          busy += Long.parseLong(f[i]);
        }
      }
      return busy;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** The 1-minute load average, or -1. */
  static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
