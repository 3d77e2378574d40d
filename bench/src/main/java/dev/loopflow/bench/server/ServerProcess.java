package dev.loopflow.bench.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code loopflow server} as a separate process, as a user starts it: the CLI's shaded jar on an SQLite store in a
 * fresh LOOPFLOW_HOME, on a port the system picks. Its first line of output is the URL it listens on; the rest of
 * its output goes to {@code server.out} and {@code server.err} in that home, which {@link #log()} reads back (the
 * benchmark looks there for database errors).
 */
final class ServerProcess implements AutoCloseable {
  private static final Pattern URL = Pattern.compile("(https?://[^/\\s#]+)");

  private final Process process;
  private final URI base;
  private final Path home;

  private ServerProcess(Process process, URI base, Path home) {
    this.process = process;
    this.base = base;
    this.home = home;
  }

  static ServerProcess start(String java, List<String> jvmArgs, Path jar, Path home, String token)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.addAll(jvmArgs);
    cmd.addAll(List.of("-jar", jar.toString(), "server", "--port", "0", "--store",
        "sqlite:" + home.resolve("runs.db"), "--token", token));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(home.resolve("server.err").toFile());
    pb.environment().put("LOOPFLOW_HOME", home.toString());
    Process p = pb.start();
    CompletableFuture<String> first = new CompletableFuture<>();
    Path out = home.resolve("server.out");
    Thread.ofPlatform().daemon().name("server-stdout").start(() -> drain(p, out, first));
    String line;
    try {
      line = first.get(60, TimeUnit.SECONDS);
    } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
      p.destroyForcibly();
      throw new IOException("loopflow server printed no URL within 60 s; its errors: "
          + Files.readString(home.resolve("server.err")), e);
    }
    Matcher m = line == null ? null : URL.matcher(line);
    if (m == null || !m.find()) {
      p.destroyForcibly();
      throw new IOException("loopflow server printed no URL; its errors: "
          + Files.readString(home.resolve("server.err")));
    }
    return new ServerProcess(p, URI.create(m.group(1)), home);
  }

  /**
   * Copies the server's stdout to {@code out}, completing {@code first} with the first line holding a URL: the
   * server's own first line, unless JVM options added lines before it (a flight recording announces itself there).
   */
  private static void drain(Process p, Path out, CompletableFuture<String> first) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Writer w = Files.newBufferedWriter(out)) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        if (!first.isDone() && URL.matcher(line).find()) {
          first.complete(line);
        }
        w.write(line);
        w.write('\n');
        w.flush();
      }
      first.complete(null);
    } catch (IOException e) {
      first.completeExceptionally(e);
    }
  }

  URI base() {
    return base;
  }

  long pid() {
    return process.pid();
  }

  /** Everything the server printed so far. */
  String log() {
    try {
      return Files.readString(home.resolve("server.out")) + Files.readString(home.resolve("server.err"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Stops the server as Ctrl-C would (SIGTERM), forcibly after 20 s; its exit code. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor();
    }
  }

  int exitCode() {
    return process.exitValue();
  }
}
