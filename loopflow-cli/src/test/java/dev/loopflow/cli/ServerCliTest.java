package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loopflow server} as a process of its own: its first line, its token, a clean stop on SIGTERM, and runs it
 * shares with the other commands on the same store.
 */
class ServerCliTest {
  static final Pattern FIRST_LINE = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)/#token=(\\S+)");
  static final ObjectMapper JSON = new ObjectMapper();
  final HttpClient http = HttpClient.newHttpClient();

  @TempDir
  Path dir;

  /** A server process: its URL and token from its first line, its stderr lines. */
  record Server(Process process, int port, String token, List<String> stderr, Thread stderrReader) {
    String base() {
      return "http://127.0.0.1:" + port;
    }
  }

  private Server start(Path home, Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
        "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED", "-cp", TestJvm.classPathOption(),
        "dev.loopflow.cli.Main", "server", "--port", "0"));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
    pb.environment().remove("LOOPFLOW_TOKEN");
    pb.environment().remove("LOOPFLOW_STORE");
    pb.environment().put("LOOPFLOW_HOME", home.toString());
    pb.environment().putAll(env);
    Process p = pb.start();
    List<String> stderr = new CopyOnWriteArrayList<>();
    Thread reader = Thread.ofVirtual().start(() -> {
      try (BufferedReader r = p.errorReader(StandardCharsets.UTF_8)) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          stderr.add(line);
        }
      } catch (IOException e) {
        stderr.add("(unreadable: " + e + ")");
      }
    });
    CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
      try {
        return p.inputReader(StandardCharsets.UTF_8).readLine();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    String line = first.get(60, TimeUnit.SECONDS);
    Matcher m = FIRST_LINE.matcher(line == null ? "" : line);
    assertThat(m.matches()).as("first line: " + line + "; stderr: " + stderr).isTrue();
    return new Server(p, Integer.parseInt(m.group(1)), m.group(2), stderr, reader);
  }

  private HttpResponse<String> call(Server s, String method, String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(s.base() + path)).header("Authorization",
        "Bearer " + s.token()).header("Content-Type", "application/json").timeout(Duration.ofSeconds(60));
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode awaitStatus(Server s, String id, String status) throws Exception {
    JsonNode last = null;
    for (int i = 0; i < 600; i++) {
      HttpResponse<String> r = call(s, "GET", "/api/runs/" + id, null);
      if (r.statusCode() == 200) {
        last = JSON.readTree(r.body());
        if (last.path("status").asText().equals(status)) {
          return last;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError(id + " never " + status + ": " + last);
  }

  private static int stop(Server s) throws Exception {
    // SIGTERM, as a service manager stops it (Process.destroy would also close the pipes this test reads).
    new ProcessBuilder("kill", "-TERM", String.valueOf(s.process().pid())).start().waitFor();
    assertThat(s.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
    s.stderrReader().join(Duration.ofSeconds(10));
    return s.process().exitValue();
  }

  @Test
  void theFirstLineIsTheUrlWithAKeptTokenAndSigtermStopsItCleanly() throws Exception {
    Path home = dir.resolve("home");
    String store = "sqlite:" + dir.resolve("runs.db");
    Server s = start(home, Map.of(), "--store", store);
    try {
      assertThat(call(s, "GET", "/api/health", null).statusCode()).isEqualTo(200);
      assertThat(http.send(HttpRequest.newBuilder(URI.create(s.base() + "/api/health")).build(),
          HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
      Path tokenFile = home.resolve("server.token");
      assertThat(Files.readString(tokenFile).strip()).isEqualTo(s.token());
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile))).isEqualTo("rw-------");
      assertThat(home.resolve("workflows")).isDirectory();
    } finally {
      assertThat(stop(s)).isZero();
    }
    assertThat(s.stderr()).anyMatch(l -> l.contains("stopping"));
    Server again = start(home, Map.of(), "--store", store);
    try {
      assertThat(again.token()).isEqualTo(s.token());
    } finally {
      stop(again);
    }
  }

  @Test
  void aConfiguredTokenWinsAndIsNotWrittenDown() throws Exception {
    Path home = dir.resolve("home");
    Server s = start(home, Map.of("LOOPFLOW_TOKEN", "from-the-environment"), "--store", "memory");
    try {
      assertThat(s.token()).isEqualTo("from-the-environment");
    } finally {
      stop(s);
    }
    Server t = start(home, Map.of("LOOPFLOW_TOKEN", "from-the-environment"), "--store", "memory", "--token",
        "from-the-flag");
    try {
      assertThat(t.token()).isEqualTo("from-the-flag");
      assertThat(call(t, "GET", "/api/health", null).statusCode()).isEqualTo(200);
    } finally {
      stop(t);
    }
    assertThat(home.resolve("server.token")).doesNotExist();
  }

  @Test
  void aNonLoopbackAddressWithoutAConfiguredTokenIsRefused() {
    assumeThat(System.getenv("LOOPFLOW_TOKEN")).isNull();
    CliTest.Run r = CliTest.cli("server", "--host", "0.0.0.0", "--port", "0", "--store", "memory");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.err()).contains("--host 0.0.0.0 is not a loopback address").contains("--token");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void runsAreSharedWithTheOtherCommandsBothWays() throws Exception {
    String store = "sqlite:" + dir.resolve("shared.db");
    Server s = start(dir.resolve("home"), Map.of(), "--store", store);
    try {
      // Started over HTTP, paused: listed, shown and resumed by the command line.
      String approval = "name: approve-me\nnodes:\n  - {id: build, type: transform, template: built}\n"
          + "  - id: ask\n    approval: \"Ship?\"\nedges: [{from: build, to: ask}]\n";
      HttpResponse<String> started = call(s, "POST", "/api/runs", JSON.writeValueAsString(Map.of("source",
          approval)));
      assertThat(started.statusCode()).as(started.body()).isEqualTo(201);
      String id = JSON.readTree(started.body()).path("run_id").asText();
      awaitStatus(s, id, "paused");
      CliTest.Run runs = CliTest.cli("runs", "--json", "--store", store);
      assertThat(JSON.readTree(runs.out()).get(0).path("run_id").asText()).isEqualTo(id);
      CliTest.Run show = CliTest.cli("show", id, "--json", "--store", store);
      // the API's show is the command line's, with the run record's times added (the run list's duration rule)
      ObjectNode overHttp = (ObjectNode) JSON.readTree(call(s, "GET", "/api/runs/" + id, null).body());
      assertThat(overHttp.has("started_at") && overHttp.has("duration_ms")).isTrue();
      overHttp.remove(List.of("started_at", "finished_at", "duration_ms"));
      assertThat(JSON.readTree(show.out())).isEqualTo(overHttp);
      CliTest.Run resumed = CliTest.cli("resume", id, "--approve", "--json", "--quiet", "--store", store);
      assertThat(resumed.status()).as(resumed.err()).isZero();
      assertThat(awaitStatus(s, id, "completed").path("status").asText()).isEqualTo("completed");

      // Started over HTTP, running: cancelled by the command line.
      Path gate = dir.resolve("gate");
      String gated = "name: gated\nnodes:\n  - id: wait\n    bash: 'while [ ! -f \"" + gate + "\" ]; do sleep 0.02; "
          + "done'\n";
      String running = JSON.readTree(call(s, "POST", "/api/runs", JSON.writeValueAsString(Map.of("source", gated)))
          .body()).path("run_id").asText();
      awaitStatus(s, running, "running");
      CliTest.Run cancel = CliTest.cli("cancel", running, "--reason", "from the terminal", "--store", store);
      assertThat(cancel.status()).as(cancel.err()).isZero();
      assertThat(cancel.out()).contains("cancelled");
      assertThat(awaitStatus(s, running, "cancelled").path("error").path("message").asText())
          .contains("from the terminal");

      // Started by the command line, paused: resumed over HTTP.
      Path file = dir.resolve("approve.yaml");
      Files.writeString(file, approval);
      CliTest.Run run = CliTest.cli("run", file.toString(), "--json", "--quiet", "--store", store);
      assertThat(run.status()).isEqualTo(3);
      String fromCli = JSON.readTree(run.out()).path("run_id").asText();
      HttpResponse<String> resume = call(s, "POST", "/api/runs/" + fromCli + "/resume",
          "{\"approve\": true, \"comment\": \"from the browser\"}");
      assertThat(resume.statusCode()).as(resume.body()).isEqualTo(200);
      awaitStatus(s, fromCli, "completed");
      CliTest.Run after = CliTest.cli("show", fromCli, "--json", "--store", store);
      assertThat(JSON.readTree(after.out()).path("status").asText()).isEqualTo("completed");
    } finally {
      assertThat(stop(s)).isZero();
    }
  }
}
