package dev.loopflow.llm.internal.tools;

import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.provider.ToolSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code shell}: runs a command the model wrote with {@code bash -c}, in the run's working directory with the
 * run's environment, and returns its exit code, stdout and stderr (each cut to {@code maxOutputBytes}). It executes
 * whatever the model writes, so a node only offers it with {@code {shell: {allow: true}}}. A command still running
 * after the timeout is killed with everything it started, and the call fails; stdin is empty.
 */
final class ShellTool implements Tool {
  static final String NAME = "shell";

  private static final Map<String, Object> PARAMETERS = Params.object(Params.props(
      "command", Params.string("the bash command line to run")), List.of("command"));
  private static final JsonSchemas.Compiled SCHEMA = Params.compile(PARAMETERS);

  private final Duration timeout;
  private final int maxOutputBytes;
  private final ToolSpec spec;

  ShellTool(Duration timeout, int maxOutputBytes) {
    this.timeout = timeout;
    this.maxOutputBytes = maxOutputBytes;
    this.spec = new ToolSpec(NAME, "Runs a bash command in the working directory and returns its exit code, stdout "
        + "and stderr. Commands are killed after " + Toolbox.human(timeout) + ".", PARAMETERS);
  }

  @Override
  public ToolSpec spec() {
    return spec;
  }

  @Override
  public JsonSchemas.Compiled schema() {
    return SCHEMA;
  }

  @Override
  public Object call(NodeContext ctx, Map<String, Object> args) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(List.of("bash", "-c", (String) args.get("command")));
    pb.environment().clear();
    pb.environment().putAll(ctx.environment());
    pb.directory(ctx.workingDirectory().toFile());
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new ToolError("cannot start bash: " + e.getMessage());
    }
    p.getOutputStream().close(); // stdin is empty: a command that reads it sees its end at once
    Capped out = new Capped(maxOutputBytes);
    Capped err = new Capped(maxOutputBytes);
    Thread to = Thread.ofVirtual().start(() -> out.drain(p.getInputStream()));
    Thread te = Thread.ofVirtual().start(() -> err.drain(p.getErrorStream()));
    boolean finished;
    try {
      finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      kill(p);
      throw e;
    }
    if (!finished) {
      kill(p);
    }
    // The pipes close when the command and everything it started are gone; a grandchild that escaped the kill
    // (started its own session) could hold them open, so the readers get a bounded wait.
    to.join(Duration.ofSeconds(5));
    te.join(Duration.ofSeconds(5));
    if (!finished) {
      throw new ToolError("the command did not finish within " + Toolbox.human(timeout) + " and was killed; "
          + "stdout so far: " + out.text());
    }
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("exit_code", p.exitValue());
    result.put("stdout", out.text());
    result.put("stderr", err.text());
    return result;
  }

  private static void kill(Process p) throws InterruptedException {
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
    p.waitFor(5, TimeUnit.SECONDS);
  }

  /** Keeps the first {@code max} bytes of a stream and reads (and drops) the rest, so the writer never blocks. */
  private static final class Capped {
    private final int max;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private long dropped;

    Capped(int max) {
      this.max = max;
    }

    void drain(InputStream in) {
      byte[] buf = new byte[8192];
      try (in) {
        for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
          synchronized (this) {
            int keep = Math.max(0, Math.min(n, max - kept.size()));
            kept.write(buf, 0, keep);
            dropped += n - keep;
          }
        }
      } catch (IOException e) {
        // the stream closes when the process is killed
      }
    }

    synchronized String text() {
      String s = kept.toString(StandardCharsets.UTF_8);
      return dropped == 0 ? s : s + "\n[cut: " + dropped + " more bytes]";
    }
  }
}
