package dev.loopflow.core.internal.nodes;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a subprocess, feeding stdin and collecting stdout/stderr, and kills its whole tree when interrupted. */
final class Processes {
  private Processes() {}

  record Result(int exitCode, String stdout, String stderr) {}

  static Result run(List<String> command, Map<String, String> env, java.nio.file.Path cwd, String stdin)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().clear();
    pb.environment().putAll(env);
    pb.directory(cwd.toFile());
    Process p = pb.start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Thread to = Thread.ofVirtual().start(() -> copy(p.getInputStream(), out));
    Thread te = Thread.ofVirtual().start(() -> copy(p.getErrorStream(), err));
    try {
      try (OutputStream in = p.getOutputStream()) {
        if (stdin != null) {
          in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
      } catch (IOException ignored) {
        // the process may exit without reading its input
      }
      int code = p.waitFor();
      to.join();
      te.join();
      return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } catch (InterruptedException e) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(5, TimeUnit.SECONDS);
      throw e;
    }
  }

  private static void copy(InputStream in, ByteArrayOutputStream out) {
    try (in) {
      in.transferTo(out);
    } catch (IOException ignored) {
      // the stream closes when the process is killed
    }
  }

  static String chomp(String s) {
    if (s.endsWith("\r\n")) {
      return s.substring(0, s.length() - 2);
    }
    return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
  }
}
