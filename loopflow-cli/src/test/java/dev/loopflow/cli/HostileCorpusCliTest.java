package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.loopflow.cli.CliTest.Run;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A corpus of hostile workflows, inputs and model replies run through the command line as a user runs it: no value
 * ever runs a command (a marker file is never created), no budget lets a call past its limit under concurrency, no
 * Lua script outlives its timeout, cancel or memory bound, no credential reaches the store file, the event file,
 * {@code show} or the HTTP API, oversized bodies and files are refused, and every bad case is one clear error line
 * with the documented exit status and no stack trace.
 *
 * <p>The workflows live in {@code src/test/resources/hostile}: {@code cases/*.yaml} each say in their header
 * comments how to run them and what must come out ({@code # args:}, {@code # exit:}, {@code # expect:} for a
 * fragment of the output, {@code # stdout:} for the exact output). {@code __URL__} becomes this test's HTTP server
 * and {@code __MARKER__} a file that must never exist.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostileCorpusCliTest {
  private static final Path CORPUS = Path.of("src/test/resources/hostile");
  private static final ObjectMapper JSON = new ObjectMapper();
  /** A line of live progress: {@code [  0.12s] node  started}. */
  private static final java.util.regex.Pattern PROGRESS = java.util.regex.Pattern.compile("\\[ *\\d+\\.\\d\\ds\\] ");
  /** Set by this module's surefire configuration, so every run sees it as a credential of its environment. */
  private static final String ENV_KEY = System.getenv("LOOPFLOW_TEST_API_KEY");

  private static HttpServer server;
  private static String url;
  /** LLM calls the fake provider received. */
  private static final AtomicInteger llmCalls = new AtomicInteger();

  @TempDir
  Path dir;

  private Path marker;
  private String oldHome;
  private Map<String, String> oldEnv;

  @BeforeAll
  static void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.createContext("/big", ex -> {
      // 400 MB offered in chunks; the client stops reading at its cap and closes the connection.
      ex.sendResponseHeaders(200, 0);
      byte[] chunk = new byte[64 * 1024];
      java.util.Arrays.fill(chunk, (byte) 'x');
      try (OutputStream out = ex.getResponseBody()) {
        for (int i = 0; i < 400 * 16; i++) {
          out.write(chunk);
        }
      } catch (IOException closedByClient) {
        // expected: the client read its cap and went away
      }
    });
    server.createContext("/biglen", ex -> {
      // Announces 400 MB and sends a little of it, so the headers are on the wire before the connection closes.
      ex.sendResponseHeaders(200, 400L * 1024 * 1024);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(new byte[4096]);
        out.flush();
        Thread.sleep(2000);
      } catch (IOException | InterruptedException closedByClient) {
        // expected: the client refuses the length and goes away
      }
    });
    server.createContext("/loop1", ex -> redirect(ex, "/loop2"));
    server.createContext("/loop2", ex -> redirect(ex, "/loop1"));
    server.createContext("/noloc", ex -> {
      ex.sendResponseHeaders(302, -1);
      ex.close();
    });
    server.createContext("/notmodified", ex -> {
      ex.sendResponseHeaders(304, -1);
      ex.close();
    });
    server.createContext("/created", ex -> {
      byte[] b = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().add("Content-Type", "application/json");
      ex.sendResponseHeaders(201, b.length);
      ex.getResponseBody().write(b);
      ex.close();
    });
    // An OpenAI-compatible provider that answers slowly, so concurrent calls overlap, and counts what it gets.
    server.createContext("/v1/chat/completions", ex -> {
      ex.getRequestBody().readAllBytes();
      llmCalls.incrementAndGet();
      try {
        Thread.sleep(150);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      byte[] b = ("{\"id\":\"c\",\"object\":\"chat.completion\",\"model\":\"pricey\",\"choices\":[{\"index\":0,"
          + "\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}],"
          + "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":10,\"total_tokens\":20}}")
          .getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().add("Content-Type", "application/json");
      ex.sendResponseHeaders(200, b.length);
      ex.getResponseBody().write(b);
      ex.close();
    });
    server.start();
    url = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private static void redirect(HttpExchange ex, String to) throws IOException {
    ex.getResponseHeaders().add("Location", to);
    ex.sendResponseHeaders(302, -1);
    ex.close();
  }

  @AfterAll
  static void stopServer() {
    server.stop(0);
  }

  @BeforeEach
  void homeAndEnvironment() throws IOException {
    marker = dir.resolve("marker");
    oldHome = System.getProperty("loopflow.home");
    System.setProperty("loopflow.home", dir.resolve("home").toString());
    oldEnv = Support.environment;
    Map<String, String> env = new HashMap<>(System.getenv());
    for (dev.loopflow.llm.provider.Provider p : dev.loopflow.llm.provider.Provider.values()) {
      env.remove(p.baseUrlVariable());
      p.apiKeyVariable().ifPresent(env::remove);
    }
    Support.environment = Map.copyOf(env);
  }

  @AfterEach
  void restore() {
    if (oldHome == null) {
      System.clearProperty("loopflow.home");
    } else {
      System.setProperty("loopflow.home", oldHome);
    }
    Support.environment = oldEnv;
    assertThat(marker).as("a hostile value ran a command").doesNotExist();
  }

  /** A corpus file with its placeholders filled in, written to the test's directory under the same name. */
  private Path materialize(Path source, Map<String, String> extra) throws IOException {
    String text = Files.readString(source).replace("__URL__", url).replace("__MARKER__", marker.toString());
    for (Map.Entry<String, String> e : extra.entrySet()) {
      text = text.replace(e.getKey(), e.getValue());
    }
    Path out = dir.resolve(source.getFileName().toString());
    Files.writeString(out, text);
    return out;
  }

  /**
   * What every command must do whatever it was given: no stack trace, and each line on stderr is one message
   * ({@code loopflow: ...}, or a workflow problem or count line that starts with the file's path).
   */
  private static void clean(Run r, Path file) {
    String all = r.out() + r.err();
    assertThat(all).as("a stack trace in:%n%s", all).doesNotContain("at dev.loopflow").doesNotContain("\tat ")
        .doesNotContain("Caused by:");
    for (String line : r.err().lines().toList()) {
      assertThat(line.startsWith("loopflow: ") || PROGRESS.matcher(line).lookingAt()
              || file != null && line.startsWith(file.toString()))
          .as("stderr line is not one clear message: %s%nstderr:%n%s", line, r.err()).isTrue();
    }
  }

  static Stream<Path> cases() throws IOException {
    try (Stream<Path> s = Files.list(CORPUS.resolve("cases"))) {
      return s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList().stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void eachCaseGivesItsValueOrItsOneLineError(Path source) throws Exception {
    List<String> header = Files.readAllLines(source).stream().takeWhile(l -> l.startsWith("# ")).toList();
    String args = "run --quiet";
    int exit = 0;
    List<String> expect = new ArrayList<>();
    String stdout = null;
    for (String h : header) {
      String[] kv = h.substring(2).split(": ", 2);
      switch (kv[0]) {
        case "args" -> args = kv[1];
        case "exit" -> exit = Integer.parseInt(kv[1]);
        case "expect" -> expect.add(kv[1].replace("__URL__", url));
        case "stdout" -> stdout = kv[1];
        default -> throw new AssertionError(source + ": unknown header " + h);
      }
    }
    Path file = materialize(source, Map.of());
    List<String> argv = new ArrayList<>(List.of(args.split(" ")));
    argv.add(1, file.toString());

    Run r = cli(argv.toArray(String[]::new));

    assertThat(r.status()).as("exit status; stderr:%n%s", r.err()).isEqualTo(exit);
    for (String e : expect) {
      assertThat(r.out() + r.err()).contains(e);
    }
    if (stdout != null) {
      assertThat(r.out().stripTrailing()).isEqualTo(stdout);
    }
    if (exit != 0) {
      // The error itself is the first line; a failed run adds only the line that says how to resume it.
      assertThat(r.err().lines().filter(l -> l.startsWith("loopflow: run failed")).count()).isLessThanOrEqualTo(1);
    }
    clean(r, file);
  }

  static Stream<String> shellValues() throws IOException {
    List<String> values = new ArrayList<>(Files.readAllLines(CORPUS.resolve("shell-values.txt")).stream()
        .filter(l -> !l.isEmpty()).toList());
    values.add("1\n$(touch __MARKER__)");
    values.add("a[\n$(touch __MARKER__)]");
    return values.stream();
  }

  private static boolean integer(String v) {
    return v.strip().matches("[+-]?[0-9]+");
  }

  @ParameterizedTest(name = "{index}: {0}")
  @MethodSource("shellValues")
  void noValueRunsACommandInAnyShellContext(String template) throws Exception {
    String value = template.replace("__MARKER__", marker.toString());
    Path wf = materialize(CORPUS.resolve("shell-contexts.yaml"), Map.of());

    Run r = cli("run", wf.toString(), "--input", "n=" + value, "--json", "--quiet");

    clean(r, wf);
    assertThat(marker).as("value %s ran a command", value).doesNotExist();
    assertThat(r.status()).as(r.err()).isZero();
    JsonNode nodes = JSON.readTree(r.out()).get("nodes");
    List<String> seen = new ArrayList<>();
    nodes.fieldNames().forEachRemaining(seen::add);
    assertThat(seen).hasSizeGreaterThan(20);
    for (String id : seen) {
      JsonNode n = nodes.get(id);
      String status = n.get("status").asText();
      String message = n.path("error").path("message").asText("");
      if (id.startsWith("arith_")) {
        if (integer(value)) {
          assertThat(status).as(id + ": " + message).isEqualTo("completed");
        } else {
          assertThat(message).as(id).contains("is used in an arithmetic context and must be an integer");
        }
      } else if (id.startsWith("name_") && !integer(value)) {
        assertThat(message).as(id).contains("is used as a variable name and must be a name");
      } else if (id.startsWith("plain_")) {
        // Data stays data: the value comes back exactly, whatever quotes, comments or heredocs surround it.
        assertThat(status).as(id + ": " + message).isEqualTo("completed");
        assertThat(n.get("stdout").asText().stripTrailing()).as(id).isEqualTo(value.stripTrailing());
      }
    }
  }

  static Stream<String> hostileReplies() throws IOException {
    return shellValues().filter(v -> !integer(v));
  }

  @ParameterizedTest(name = "{index}: {0}")
  @MethodSource("hostileReplies")
  void aModelReplyInUntilBashNeverRunsACommand(String template) throws Exception {
    String reply = template.replace("__MARKER__", marker.toString());
    Path script = dir.resolve("replies.json");
    Files.writeString(script, JSON.writeValueAsString(List.of(reply)));
    Path wf = materialize(CORPUS.resolve("until-bash-llm.yaml"), Map.of());

    Run r = cli("run", wf.toString(), "--mock-script", script.toString(), "--quiet");

    clean(r, wf);
    assertThat(marker).doesNotExist();
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).contains("until_bash: the value of {{ score.output }} is used in an arithmetic context and "
        + "must be an integer");
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(delimiter = '|', value = {
      "budget-iterator.yaml|max_llm_calls: 2|budget exceeded: max_llm_calls 2 reached",
      "budget-parallel.yaml|max_llm_calls: 2|budget exceeded: max_llm_calls 2 reached",
      "budget-iterator.yaml|max_tokens: 100|budget exceeded: max_tokens 100",
      "budget-parallel.yaml|max_tokens: 100|budget exceeded: max_tokens 100",
      "budget-iterator.yaml|max_usd: 0.05|budget exceeded: max_usd 0.0500",
      "budget-parallel.yaml|max_usd: 0.05|budget exceeded: max_usd 0.0500"})
  void concurrentCallsNeverPassABudget(String file, String budget, String error) throws Exception {
    Map<String, String> env = new HashMap<>(Support.environment);
    env.put("OPENAI_BASE_URL", url + "/v1");
    env.put("OPENAI_API_KEY", "sk-fake-" + "Q7wE9rT2yU4iO6pA8sD0");
    Support.environment = Map.copyOf(env);
    Path wf = materialize(CORPUS.resolve(file), Map.of("__BUDGET__", budget));
    llmCalls.set(0);

    Run r = cli("run", wf.toString(), "--json", "--quiet");

    clean(r, wf);
    assertThat(r.status()).as(r.err()).isEqualTo(1);
    JsonNode json = JSON.readTree(r.out());
    assertThat(json.get("error").get("code").asText()).isEqualTo("budget_exceeded");
    assertThat(json.get("error").get("message").asText()).contains(error);
    JsonNode usage = json.get("usage");
    // Every call the provider received is counted (a call cancelled while under way counts at its reservation,
    // whether or not its request got there), and none got past the limit. The call refused by the budget may stop
    // the others before any request leaves (each reservation is journaled first): then nothing was sent or counted.
    assertThat(usage.get("llm_calls").asInt()).as("calls counted; the provider got %d:%n%s", llmCalls.get(), r.out())
        .isGreaterThanOrEqualTo(llmCalls.get());
    String limit = budget.substring(0, budget.indexOf(':'));
    double max = Double.parseDouble(budget.substring(budget.indexOf(':') + 1).strip());
    switch (limit) {
      case "max_llm_calls" -> {
        assertThat(llmCalls.get()).isLessThanOrEqualTo((int) max);
        assertThat(usage.get("llm_calls").asInt()).isLessThanOrEqualTo((int) max);
      }
      case "max_tokens" -> assertThat(usage.get("input_tokens").asInt() + usage.get("output_tokens").asInt())
          .isLessThanOrEqualTo((int) max);
      default -> assertThat(usage.get("cost_usd").asDouble()).isLessThanOrEqualTo(max);
    }
  }

  @Test
  void cancelStopsALuaPatternBomb() throws Exception {
    Path wf = dir.resolve("bomb.yaml");
    Files.writeString(wf, """
        nodes:
          - id: bomb
            max_instructions: 2147483647
            run: |
              local s = string.rep("a", 100000)
              return { r = s:find(".-.-.-.-b") }
        """);
    CompletableFuture<Run> running = CompletableFuture.supplyAsync(() -> cli("run", wf.toString(), "--json",
        "--quiet"));
    String id = null;
    for (int i = 0; i < 600 && id == null; i++) {
      Thread.sleep(50);
      for (JsonNode run : JSON.readTree(cli("runs", "--json").out())) {
        if (run.get("status").asText().equals("running")) {
          id = run.get("run_id").asText();
        }
      }
    }
    assertThat(id).as("the run never showed as running").isNotNull();
    Thread.sleep(300); // well inside the find

    Run cancel = cli("cancel", id, "--reason", "stop the bomb");
    Run r = running.get(60, TimeUnit.SECONDS);

    clean(cancel, null);
    clean(r, wf);
    assertThat(r.status()).isEqualTo(1);
    JsonNode json = JSON.readTree(r.out());
    assertThat(json.get("status").asText()).isEqualTo("cancelled");
    assertThat(json.get("error").get("message").asText()).isEqualTo("run cancelled: stop the bomb");
    assertThat(json.get("nodes").get("bomb").get("status").asText()).isEqualTo("cancelled");
  }

  @Test
  void oversizedFilesAndLinesAreRefusedBeforeParsing() throws Exception {
    Path huge = dir.resolve("huge.yaml");
    String hugeText = "nodes:\n  - id: a\n    bash: \"echo " + "x".repeat(8 * 1024 * 1024) + "\"\n";
    Files.writeString(huge, hugeText);
    Path longLine = dir.resolve("long-line.yaml");
    Files.writeString(longLine, "nodes:\n  - id: a\n    bash: \"echo " + "x".repeat(2 * 1024 * 1024) + "\"\n");

    Run r1 = cli("validate", huge.toString());
    Run r2 = cli("run", longLine.toString());

    assertThat(r1.status()).isEqualTo(2);
    assertThat(r1.err()).contains(huge + ":1:1: the file has " + hugeText.length() + " characters; the limit for a workflow file is "
        + "3145728");
    assertThat(r2.status()).isEqualTo(2);
    assertThat(r2.err()).contains(longLine + ":3:1: line 3 has 2097169 characters; the limit is 100000");
    clean(r1, huge);
    clean(r2, longLine);
  }

  @Test
  void badFilesOnTheCommandLineAreOneLine() throws Exception {
    Path wf = dir.resolve("ok.yaml");
    Files.writeString(wf, "input:\n  s: {default: x}\nnodes:\n  - {id: a, bash: 'echo {{ input.s }}'}\n");
    Path badJson = dir.resolve("bad.json");
    Files.writeString(badJson, "{\"s\": ");

    Run directory = cli("run", dir.toString());
    Run missingInputFile = cli("run", wf.toString(), "--input-file", dir.resolve("nope.json").toString());
    Run badInputFile = cli("run", wf.toString(), "--input-file", badJson.toString());
    Run eventsIntoADirectory = cli("run", wf.toString(), "--events-jsonl", dir.toString());

    assertThat(directory.status()).isEqualTo(2);
    assertThat(directory.err()).contains(dir + ": is a directory, not a file");
    assertThat(missingInputFile.status()).isEqualTo(2);
    assertThat(missingInputFile.err()).contains("loopflow: input file not found: " + dir.resolve("nope.json"));
    assertThat(badInputFile.status()).isEqualTo(2);
    assertThat(badInputFile.err()).startsWith("loopflow: " + badJson + ":").contains("invalid JSON");
    assertThat(eventsIntoADirectory.status()).isEqualTo(2);
    assertThat(eventsIntoADirectory.err()).contains("loopflow: --events-jsonl " + dir + ": is a directory");
    for (Run r : List.of(missingInputFile, badInputFile, eventsIntoADirectory)) {
      clean(r, null);
      assertThat(r.err().lines().count()).as(r.err()).isOne();
    }
    clean(directory, dir);
  }

  @Test
  void credentialsNeverReachTheStoreTheEventsShowOrTheApi() throws Exception {
    assertThat(ENV_KEY).as("LOOPFLOW_TEST_API_KEY, set by loopflow-cli's surefire configuration").isNotNull();
    String inSource = "Zq7wPlm3Xr9KdT2vBn8Y";
    String asInput = "Hy4kLpQ2wE7rTz9mXc3V";
    Path wf = materialize(CORPUS.resolve("secrets.yaml"), Map.of("__SECRET__", inSource));
    Path db = dir.resolve("runs.db");
    Path events = dir.resolve("events.jsonl");
    String store = "sqlite:" + db;

    Run run = cli("run", wf.toString(), "--store", store, "--events-jsonl", events.toString(), "--input",
        "key=" + asInput, "--json");

    clean(run, wf);
    assertThat(run.status()).as(run.err()).isZero();
    String id = JSON.readTree(run.out()).get("run_id").asText();
    // The run did see the credentials: masked text stands where they were.
    assertThat(run.out()).contains("[redacted]");
    List<String> outputs = new ArrayList<>(List.of(run.out(), run.err(), Files.readString(events)));
    for (String[] cmd : List.of(new String[] {"show", id}, new String[] {"show", id, "--json"},
        new String[] {"show", id, "--source"}, new String[] {"events", id})) {
      List<String> argv = new ArrayList<>(List.of(cmd));
      argv.addAll(List.of("--store", store));
      Run r = cli(argv.toArray(String[]::new));
      assertThat(r.status()).as(String.join(" ", cmd) + ": " + r.err()).isZero();
      outputs.add(r.out() + r.err());
    }
    outputs.addAll(api(store, id));
    // The database, its -wal and -shm files, and the completion log directory (runs.db-log/) with any log in it.
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(p -> dir.relativize(p).toString().startsWith("runs.db")).toList()) {
        if (Files.isDirectory(f)) {
          assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).as(f.toString())
              .isEqualTo("rwx------");
          continue;
        }
        outputs.add(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).as(f.toString())
            .isEqualTo("rw-------");
      }
    }
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(events))).isEqualTo("rw-------");
    for (String secret : List.of(inSource, asInput, ENV_KEY)) {
      for (String text : outputs) {
        assertThat(text).as("a credential in:%n%s", text.length() > 4000 ? text.substring(0, 4000) : text)
            .doesNotContain(secret);
      }
    }
  }

  /** What the HTTP API answers about the run: the run, its executions, its events and the run list. */
  private List<String> api(String store, String id) throws Exception {
    List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
        "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED", "-cp", TestJvm.classPathOption(),
        "dev.loopflow.cli.Main", "server", "--port", "0", "--store", store));
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(false);
    pb.environment().remove("LOOPFLOW_TOKEN");
    pb.environment().remove("LOOPFLOW_STORE");
    pb.environment().put("LOOPFLOW_HOME", dir.resolve("server-home").toString());
    Process p = pb.start();
    try {
      CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
        try (BufferedReader r = p.inputReader(StandardCharsets.UTF_8)) {
          return r.readLine();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      String line = first.get(60, TimeUnit.SECONDS);
      Matcher m = ServerCliTest.FIRST_LINE.matcher(line == null ? "" : line);
      assertThat(m.matches()).as("server's first line: " + line).isTrue();
      String base = "http://127.0.0.1:" + m.group(1);
      HttpClient http = HttpClient.newHttpClient();
      List<String> bodies = new ArrayList<>();
      for (String path : List.of("/api/runs/" + id, "/api/runs/" + id + "/executions", "/api/runs/" + id
          + "/events", "/api/runs")) {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
            .header("Authorization", "Bearer " + m.group(2)).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        assertThat(r.body()).as(path).contains(path.endsWith("/executions") ? "preview_250" : id);
        bodies.add(r.body());
      }
      return bodies;
    } finally {
      p.destroy();
      p.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
