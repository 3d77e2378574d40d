package dev.loopflow.core.sandbox;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.spi.NodeContext;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Runs a node's operating-system process under the node's {@link SandboxPolicy} and the run's {@link SandboxMode},
 * and says how it ran. Every process node starts its processes here and nowhere else.
 *
 * <p>How a process ran, as node results record it under {@code sandbox}: the policy's level ({@code workspace},
 * {@code strict}, {@code custom}) when it was contained; {@code off} when the node asked for no sandbox;
 * {@code disabled} when the run's mode is off; {@code unavailable} when the mode is auto and bubblewrap does not work
 * here.
 */
public final class ProcessSandbox {
  /** The threads that read and feed a process's pipes: platform threads, daemons (see {@link #run}). */
  private static final ThreadFactory PIPES = Thread.ofPlatform().daemon().name("loopflow-pipe-", 0).factory();

  private ProcessSandbox() {}

  /**
   * The default most bytes of stdout, and of stderr, a process node keeps. A kept output is held several times over
   * (the result's {@code stdout} and {@code output}, the journal's JSON, the completion event), so 1 MiB keeps a
   * flood of output at about a hundred megabytes of engine memory and two of store; a node raises it with
   * {@code max_output_bytes}.
   */
  public static final int DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

  /**
   * A finished process.
   *
   * @param stdout what it wrote, its middle left out (and said so) when it wrote more than the limit
   * @param stdoutBytes how many bytes it wrote to stdout
   * @param timedOut whether it was killed at its timeout
   * @param sandbox how it ran (see the class comment)
   */
  public record Finished(int exitCode, String stdout, String stderr, long stdoutBytes, long stderrBytes,
      boolean stdoutCut, boolean stderrCut, boolean timedOut, String sandbox) {}

  /** Whether bubblewrap can contain processes here, and if not, why. */
  public record Availability(boolean available, String reason) {}

  /** Whether bubblewrap works on this machine (checked once per JVM). */
  public static Availability availability() {
    Bubblewrap.Availability a = Bubblewrap.availability();
    return new Availability(a.available(), a.reason());
  }

  /** The run's sandbox mode: the run option {@link RunOptions#SANDBOX_MODE}, else {@link SandboxMode#AUTO}. */
  public static SandboxMode mode(NodeContext ctx) {
    Object v = ctx.option(RunOptions.SANDBOX_MODE).orElse(null);
    return v == null ? SandboxMode.AUTO : v instanceof SandboxMode m ? m : SandboxMode.of(String.valueOf(v));
  }

  /**
   * Runs {@code command} to its end and returns what it wrote. stdin gets {@code stdin} (nothing when null) and is
   * then closed. When the thread is interrupted (a cancel, the node's timeout) or {@code timeout} passes, the process
   * and everything it started are killed; an interrupt is then rethrown.
   *
   * @param timeout the longest the process may run, or null for no limit but the caller's
   * @param maxOutputBytes the most bytes of stdout, and of stderr, kept (the first and last halves)
   * @throws LoopflowException {@code sandbox_required} when the run requires a sandbox and the process cannot have
   *     one; nothing was started
   * @throws IOException when the process cannot be started
   */
  public static Finished run(NodeContext ctx, SandboxPolicy policy, List<String> command, Map<String, String> env,
      Path cwd, String stdin, Duration timeout, int maxOutputBytes) throws IOException, InterruptedException {
    Launch launch = plan(ctx, policy, command, env, cwd);
    Process p = launch(launch, env, cwd);
    CappedOutput out = new CappedOutput(maxOutputBytes);
    CappedOutput err = new CappedOutput(maxOutputBytes);
    // The pipes are read and fed on platform threads: a read of a pipe blocks its thread in the kernel, and a
    // virtual thread blocked so holds its carrier. A pipe a leftover process keeps open (bubblewrap killed while it
    // was setting up can leave its helper behind) would then hold carriers for good, and with as many such pipes as
    // cores every virtual thread of the engine would wait: runs hang. A platform thread blocked so costs only itself.
    Thread to = PIPES.newThread(() -> out.drain(p.getInputStream()));
    Thread te = PIPES.newThread(() -> err.drain(p.getErrorStream()));
    to.start();
    te.start();
    boolean finished;
    try {
      Thread feeder = PIPES.newThread(() -> feed(p.getOutputStream(), stdin));
      feeder.start();
      finished = timeout == null ? waitFor(p) : p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!finished) {
        kill(p);
      }
      feeder.join(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      kill(p);
      throw e;
    }
    // Inside a sandbox the pipes close when the command ends (its namespace ends with it). Outside one, a process
    // the command left running could hold them open: the readers get a bounded wait, and the leftovers are killed.
    if (!launch.contained) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
    }
    to.join(Duration.ofSeconds(5));
    te.join(Duration.ofSeconds(5));
    if (launch.contained && finished && p.exitValue() == 1 && out.total() == 0) {
      // bubblewrap could not execute the command (not installed, not on PATH): the same failure as without it.
      String said = err.text().strip();
      if (said.startsWith("bwrap: execvp ") && said.lines().count() == 1) {
        throw new IOException("cannot run " + said.substring("bwrap: execvp ".length()));
      }
    }
    return new Finished(finished ? p.exitValue() : -1, out.text(), err.text(), out.total(), err.total(), out.cut(),
        err.cut(), !finished, launch.sandbox);
  }

  /**
   * A process that runs on (an MCP server speaking over its stdin and stdout), started under the policy and the
   * run's mode. The caller ends it with {@link Started#stop()}.
   *
   * @throws LoopflowException {@code sandbox_required} as {@link #run} does
   */
  public static Started start(NodeContext ctx, SandboxPolicy policy, List<String> command, Map<String, String> env,
      Path cwd) throws IOException, InterruptedException {
    Launch launch = plan(ctx, policy, command, env, cwd);
    return new Started(launch(launch, env, cwd), launch.sandbox);
  }

  /** A started process and how it runs (see the class comment). */
  public record Started(Process process, String sandbox) {
    /** Ends the process and everything it started. */
    public void stop() {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  private static Process launch(Launch launch, Map<String, String> env, Path cwd)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(launch.argv);
    pb.environment().clear();
    pb.environment().putAll(env);
    pb.directory(cwd.toFile());
    return Spawner.start(pb);
  }

  private static boolean waitFor(Process p) throws InterruptedException {
    p.waitFor();
    return true;
  }

  private static void feed(OutputStream in, String stdin) {
    try (in) {
      if (stdin != null) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException ignored) {
      // the process may exit without reading its input
    }
  }

  private static void kill(Process p) throws InterruptedException {
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
    p.waitFor(5, TimeUnit.SECONDS);
  }

  private record Launch(List<String> argv, boolean contained, String sandbox) {}

  private static Launch plan(NodeContext ctx, SandboxPolicy policy, List<String> command, Map<String, String> env,
      Path cwd) {
    SandboxMode mode = mode(ctx);
    if (mode == SandboxMode.OFF) {
      return new Launch(command, false, "disabled");
    }
    if (!policy.contained()) {
      if (mode == SandboxMode.REQUIRED) {
        throw new LoopflowException(ErrorCode.SANDBOX_REQUIRED, "the node asks for sandbox: off, and this run "
            + "requires a sandbox for every process node (--sandbox required)", ctx.position());
      }
      return new Launch(command, false, "off");
    }
    if (mode == SandboxMode.REQUIRED) {
      // A workflow may widen its own sandbox, but not past what the operator's required mode means: a writable
      // path elsewhere (/, ~/.bashrc, /usr/local/bin) would let it plant code that runs later, uncontained.
      String outside = Bubblewrap.writeOutsideWorkspace(policy, cwd.toAbsolutePath());
      if (outside != null) {
        throw new LoopflowException(ErrorCode.SANDBOX_REQUIRED, "the node's sandbox makes '" + outside + "' "
            + "writable, outside its working directory and /tmp, and this run requires a sandbox for every process "
            + "node (--sandbox required)", ctx.position());
      }
    }
    Bubblewrap.Availability a = Bubblewrap.availability();
    if (!a.available()) {
      if (mode == SandboxMode.REQUIRED) {
        throw new LoopflowException(ErrorCode.SANDBOX_REQUIRED, "this run requires a sandbox for every process "
            + "node (--sandbox required), and bubblewrap does not work here: " + a.reason(), ctx.position());
      }
      return new Launch(command, false, "unavailable");
    }
    Set<Path> homes = new LinkedHashSet<>();
    homes.add(Path.of(System.getProperty("user.home", "/")));
    if (env.get("HOME") != null && env.get("HOME").startsWith("/")) {
      homes.add(Path.of(env.get("HOME")));
    }
    return new Launch(Bubblewrap.command(Bubblewrap.program(), policy, cwd.toAbsolutePath(), hidden(ctx), homes,
        command), true, policy.level());
  }

  /** The run's own hidden paths: the run option {@link RunOptions#SANDBOX_HIDDEN_PATHS}. */
  private static List<Path> hidden(NodeContext ctx) {
    List<Path> out = new ArrayList<>();
    Object v = ctx.option(RunOptions.SANDBOX_HIDDEN_PATHS).orElse(null);
    if (v instanceof Collection<?> c) {
      for (Object o : c) {
        if (o != null && !String.valueOf(o).isBlank()) {
          out.add(Path.of(String.valueOf(o)));
        }
      }
    }
    return out;
  }
}
