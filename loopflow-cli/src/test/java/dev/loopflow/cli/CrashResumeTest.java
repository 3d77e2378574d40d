package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.FakeServer;
import dev.loopflow.testkit.RecordedRequest;
import dev.loopflow.testkit.Reply;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Crash safety of durable runs: the CLI is killed with SIGKILL at a random moment of a run that loops, calls an
 * (OpenAI-compatible, fake) LLM and runs shell commands, and the run is then resumed in a new process until it
 * completes. For each workflow and every trial this proves that the resumed run ends exactly as an uninterrupted
 * run does (output, state and every node's status and output), that no LLM call is made again for a node execution
 * that had completed (only the one call in flight when the process died may be repeated), and that the API key
 * never reaches the SQLite journal.
 *
 * <p>Kill delays come from a seeded generator; the seed is printed and {@code -Dcrash.seed=N} replays the same
 * delays. Most kills land between the run's first node start and the end of an uninterrupted run; about one in
 * ten lands during process start-up, possibly before the run is journaled, in which case the run is started again
 * under the same id.
 */
@DisabledOnOs(OS.WINDOWS)
class CrashResumeTest {
  private static final String API_KEY = "sk-test-crash-harness-secret";
  private static final int TRIALS = 20;
  private static final int PARALLEL_TRIALS = 2;
  private static final int APPROVED_AT_TAKE = 5;
  private static final double START_UP_KILLS = 0.1;
  private static final int MAX_RESUMES = 3;
  private static final Duration LATENCY = Duration.ofMillis(50);
  private static final Duration PROCESS_TIMEOUT = Duration.ofSeconds(60);
  private static final Pattern TAG = Pattern.compile("\\[(\\w+) #(\\d+)]");
  private static final Pattern TAKE = Pattern.compile("take (\\d+)");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long SEED = Long.getLong("crash.seed", ThreadLocalRandom.current().nextLong());

  private static final String CLASS_PATH = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
      .map(entry -> Path.of(entry).toAbsolutePath().toString()).collect(Collectors.joining(File.pathSeparator));

  private static final List<FakeServer> servers = new ArrayList<>();

  @TempDir
  Path dir;

  @BeforeAll
  static void startServers() {
    System.out.printf("CrashResumeTest: crash.seed=%d (replay the kill delays with -Dcrash.seed=%d)%n", SEED, SEED);
    for (int i = 0; i < PARALLEL_TRIALS; i++) {
      servers.add(FakeOpenAiServer.start());
    }
  }

  @AfterAll
  static void stopServers() {
    servers.forEach(FakeServer::close);
    servers.clear();
  }

  static Stream<String> workflows() {
    return Stream.of("while-drafting", "edge-coder-reviewer", "group-sessions");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("workflows")
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void runKilledAtARandomMomentResumesToTheUninterruptedResultRepeatingOnlyTheCallInFlight(String name)
      throws Exception {
    Path workflow = fixture(name);
    Baseline baseline = baseline(workflow, servers.get(0));
    System.out.printf("%s: uninterrupted run %d ms after %d ms of start-up, %d LLM calls %s, result %s%n", name,
        baseline.runMillis, baseline.startUpMillis, baseline.calls.values().stream().mapToInt(i -> i).sum(),
        baseline.calls.keySet(), baseline.comparable);

    Random random = new Random(SEED ^ name.hashCode());
    ConcurrentLinkedQueue<Trial> pending = new ConcurrentLinkedQueue<>();
    for (int i = 1; i <= TRIALS; i++) {
      boolean startUp = random.nextDouble() < START_UP_KILLS;
      long bound = startUp ? baseline.startUpMillis : baseline.runMillis;
      pending.add(new Trial(i, startUp, (long) (random.nextDouble() * bound)));
    }
    Map<Integer, TrialResult> results = new ConcurrentSkipListMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(PARALLEL_TRIALS);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (FakeServer server : servers) {
        workers.add(pool.submit(() -> {
          for (Trial t = pending.poll(); t != null; t = pending.poll()) {
            TrialResult r = trial(name, workflow, t, server);
            results.put(t.number, r);
            System.out.printf("%s trial %2d: kill %4d ms after %s: %s%n", name, t.number, t.delayMillis,
                t.startUp ? "process start" : "the first node started", r.summary());
          }
          return null;
        }));
      }
      for (Future<?> w : workers) {
        w.get();
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(results).hasSize(TRIALS);
    List<String> resultsDiffer = new ArrayList<>();
    List<String> callsRepeated = new ArrayList<>();
    List<String> usageDiffers = new ArrayList<>();
    for (TrialResult r : results.values()) {
      String where = name + " trial " + r.trial.number + " (crash.seed=" + SEED + ", kill " + r.trial.delayMillis
          + " ms after " + (r.trial.startUp ? "process start" : "the first node started") + ", " + r.how + ")";
      if (!r.comparable.equals(baseline.comparable)) {
        resultsDiffer.add(where + ":\n  expected " + baseline.comparable + "\n  but was  " + r.comparable);
      }
      List<String> extra = extraCalls(baseline.calls, r.calls);
      if (extra.size() > 1 || extra.stream().anyMatch(e -> !e.endsWith("+1"))) {
        callsRepeated.add(where + ": LLM calls per (node, iteration) beyond the uninterrupted run's: " + extra);
      }
      // After a resume the run's usage is the journal's usage plus the re-run node's: the call in flight at the
      // kill may have been journaled (as an llm.call) before its node completed, and the re-run makes it again.
      if (Math.abs(r.llmCalls - baseline.llmCalls) > 1) {
        usageDiffers.add(where + ": usage.llm_calls " + r.llmCalls + ", uninterrupted " + baseline.llmCalls);
      }
    }
    long killedMidRun = results.values().stream().filter(r -> r.how.startsWith("killed mid-run")).count();
    System.out.printf("%s: %d trials, %d killed mid-run, %d before the run was journaled, %d after it completed, "
            + "%d finished before the kill%n", name, TRIALS, killedMidRun,
        results.values().stream().filter(r -> r.how.startsWith("killed before")).count(),
        results.values().stream().filter(r -> r.how.startsWith("killed after")).count(),
        results.values().stream().filter(r -> r.how.startsWith("finished")).count());

    assertThat(resultsDiffer).as("resumed runs whose result differs from an uninterrupted run's").isEmpty();
    assertThat(callsRepeated).as("resumed runs that repeated LLM calls of completed node executions").isEmpty();
    assertThat(usageDiffers).as("resumed runs whose usage.llm_calls is off by more than the call in flight")
        .isEmpty();
    assertThat(killedMidRun).as("trials whose kill landed while the run was going on").isGreaterThanOrEqualTo(
        TRIALS / 2);
  }

  private Baseline baseline(Path workflow, FakeServer server) throws Exception {
    Path trialDir = Files.createDirectories(dir.resolve("uninterrupted"));
    Path store = trialDir.resolve("runs.db");
    respond(server);
    Cli cli = Cli.start(trialDir, server, List.of("run", workflow.toString(), "--store", "sqlite:" + store,
        "--run-id", "uninterrupted", "--json"));
    long firstNode = cli.firstNodeStarted();
    Outcome done = cli.finish();
    assertThat(done.exit).as("uninterrupted run: %s", done).isZero();
    List<RecordedRequest> requests = server.requests();
    assertThat(requests).isNotEmpty().allSatisfy(r -> assertThat(r.header("Authorization"))
        .isEqualTo("Bearer " + API_KEY));
    Map<String, Integer> calls = callsPerNodeIteration(requests);
    assertThat(calls).as("LLM calls per (node, iteration) of the uninterrupted run").isNotEmpty()
        .allSatisfy((key, count) -> assertThat(count).as(key).isOne());
    assertNoSecretIn(trialDir);
    JsonNode result = JSON.readTree(done.stdout);
    return new Baseline(comparable(result), result.path("usage").path("llm_calls").asInt(), calls,
        TimeUnit.NANOSECONDS.toMillis(firstNode - cli.launched),
        TimeUnit.NANOSECONDS.toMillis(cli.lastLine - firstNode));
  }

  private TrialResult trial(String name, Path workflow, Trial t, FakeServer server) throws Exception {
    Path trialDir = Files.createDirectories(dir.resolve("trial-" + t.number));
    String store = "sqlite:" + trialDir.resolve("runs.db");
    String runId = name + "-" + t.number;
    List<String> runArgs = List.of("run", workflow.toString(), "--store", store, "--run-id", runId, "--json");
    respond(server);
    Cli cli = Cli.start(trialDir, server, runArgs);
    Outcome last;
    String how;
    try {
      if (!t.startUp) {
        cli.firstNodeStarted();
      }
      boolean exitedFirst = cli.process.waitFor(t.delayMillis, TimeUnit.MILLISECONDS);
      if (exitedFirst) {
        last = cli.finish();
        how = "finished before the kill";
      } else {
        cli.process.destroyForcibly().waitFor();
        last = null;
        how = null;
      }
    } finally {
      cli.process.destroyForcibly();
    }
    int resumes = 0;
    while (last == null || last.exit != 0) {
      if (resumes == MAX_RESUMES) {
        return TrialResult.failed(t, "no completed run after " + resumes + " resumes; last: " + last,
            callsPerNodeIteration(server.requests()));
      }
      resumes++;
      Outcome resumed = Cli.start(trialDir, server, List.of("resume", runId, "--store", store, "--json", "--quiet"))
          .finish();
      if (resumed.exit == 2 && resumed.stderr.contains("no run '" + runId + "'")) {
        how = how == null ? "killed before the run was journaled, started again" : how;
        resumed = Cli.start(trialDir, server, List.of("run", workflow.toString(), "--store", store, "--run-id", runId,
            "--json", "--quiet")).finish();
      } else if (resumed.exit == 2 && resumed.stderr.contains("is completed")) {
        how = how == null ? "killed after the run completed" : how;
        resumed = Cli.start(trialDir, server, List.of("show", runId, "--store", store, "--json")).finish();
      } else {
        how = how == null ? "killed mid-run" : how;
      }
      last = resumed;
    }
    assertNoSecretIn(trialDir);
    JsonNode result = JSON.readTree(last.stdout);
    return new TrialResult(t, how + (resumes > 0 ? ", " + resumes + " resume(s)" : ""), comparable(result),
        callsPerNodeIteration(server.requests()), result.path("usage").path("llm_calls").asInt());
  }

  /** Each (node, iteration) whose call count exceeds the uninterrupted run's, as {@code key+N}; missing ones too. */
  private static List<String> extraCalls(Map<String, Integer> expected, Map<String, Integer> actual) {
    List<String> differ = new ArrayList<>();
    Map<String, Integer> all = new TreeMap<>(expected);
    actual.keySet().forEach(k -> all.putIfAbsent(k, 0));
    for (String key : all.keySet()) {
      int diff = actual.getOrDefault(key, 0) - expected.getOrDefault(key, 0);
      if (diff != 0) {
        differ.add(key + (diff > 0 ? "+" : "") + diff);
      }
    }
    return differ;
  }

  /**
   * Answers every chat completion after a fixed latency, from the request alone: a writer's reply names its take
   * (the loop iteration) and a digest of the whole conversation it was sent, so a lost session turn or a lost
   * previous-pass value changes every later reply; a reviewer approves take {@value APPROVED_AT_TAKE}.
   */
  private static void respond(FakeServer server) {
    server.reset();
    server.respondWith(request -> {
      JsonNode messages = request.json().path("messages");
      String prompt = text(messages.get(messages.size() - 1));
      Matcher tag = TAG.matcher(prompt);
      boolean tagged = tag.find();
      String node = tagged ? tag.group(1) : "untagged";
      String iteration = tagged ? tag.group(2) : "";
      String digest = digest(messages.toString());
      String reply = switch (node) {
        case "draft", "coder", "write" -> "take " + iteration + " (" + messages.size() + " messages, " + digest + ")";
        case "review", "reviewer", "critic" -> approves(prompt) ? "verdict " + digest + "\nAPPROVED"
            : "revise take " + iteration + " (" + digest + ")";
        default -> node + " " + digest;
      };
      return Reply.text(reply).after(LATENCY);
    });
  }

  private static boolean approves(String prompt) {
    Matcher take = TAKE.matcher(prompt);
    return take.find() && Integer.parseInt(take.group(1)) >= APPROVED_AT_TAKE;
  }

  private static Map<String, Integer> callsPerNodeIteration(List<RecordedRequest> requests) {
    Map<String, Integer> calls = new TreeMap<>();
    for (RecordedRequest r : requests) {
      if (!r.path().endsWith("/chat/completions")) {
        continue;
      }
      JsonNode messages = r.json().path("messages");
      Matcher tag = TAG.matcher(text(messages.get(messages.size() - 1)));
      calls.merge(tag.find() ? tag.group(1) + "#" + tag.group(2) : "untagged", 1, Integer::sum);
    }
    return calls;
  }

  private static String text(JsonNode message) {
    JsonNode content = message.path("content");
    if (content.isArray()) {
      StringBuilder sb = new StringBuilder();
      content.forEach(part -> sb.append(part.path("text").asText()));
      return sb.toString();
    }
    return content.asText();
  }

  private static String digest(String text) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** What must not change across a crash: status, output, state, and each node's status and output. */
  private static JsonNode comparable(JsonNode result) {
    ObjectNode view = JSON.createObjectNode();
    view.set("status", result.path("status"));
    view.set("output", result.path("output"));
    view.set("state", result.path("state"));
    ObjectNode nodes = view.putObject("nodes");
    result.path("nodes").properties().forEach(e -> {
      ObjectNode node = nodes.putObject(e.getKey());
      node.set("status", e.getValue().path("status"));
      if (e.getValue().has("output")) {
        node.set("output", e.getValue().get("output"));
      }
    });
    return view;
  }

  private static void assertNoSecretIn(Path trialDir) throws IOException {
    byte[] secret = API_KEY.getBytes(StandardCharsets.UTF_8);
    try (Stream<Path> files = Files.list(trialDir)) {
      for (Path f : files.filter(p -> p.getFileName().toString().startsWith("runs.db")).toList()) {
        assertThat(indexOf(Files.readAllBytes(f), secret)).as("the API key in %s", f).isEqualTo(-1);
      }
    }
  }

  private static int indexOf(byte[] data, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= data.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (data[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static Path fixture(String name) throws URISyntaxException {
    return Path.of(CrashResumeTest.class.getResource("/crash/" + name + ".yaml").toURI());
  }

  private record Trial(int number, boolean startUp, long delayMillis) {}

  private record Baseline(JsonNode comparable, int llmCalls, Map<String, Integer> calls, long startUpMillis,
      long runMillis) {}

  private record TrialResult(Trial trial, String how, JsonNode comparable, Map<String, Integer> calls,
      int llmCalls) {
    static TrialResult failed(Trial trial, String how, Map<String, Integer> calls) {
      return new TrialResult(trial, how, JSON.createObjectNode().put("failure", how), calls, -1);
    }

    String summary() {
      return how + "; LLM calls " + calls.values().stream().mapToInt(i -> i).sum();
    }
  }

  private record Outcome(int exit, String stdout, String stderr) {
    @Override
    public String toString() {
      return "exit " + exit + "\nstdout: " + stdout + "\nstderr: " + stderr;
    }
  }

  /** One CLI process, its stdout in a file and its stderr read line by line to see the first node start. */
  private static final class Cli {
    final Process process;
    final long launched;
    final Path stdout;
    final List<String> stderr = Collections.synchronizedList(new ArrayList<>());
    final CompletableFuture<Long> firstNodeStarted = new CompletableFuture<>();
    final Thread reader;
    volatile long lastLine;

    private Cli(Process process, long launched, Path stdout) {
      this.process = process;
      this.launched = launched;
      this.stdout = stdout;
      this.reader = Thread.ofPlatform().daemon().start(this::readStderr);
    }

    static Cli start(Path workDir, FakeServer server, List<String> args) throws IOException {
      String java = ProcessHandle.current().info().command().orElse("java");
      List<String> command = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-Xshare:auto",
          "--enable-native-access=ALL-UNNAMED", "-cp", CLASS_PATH, "dev.loopflow.cli.Main"));
      command.addAll(args);
      Path out = Files.createTempFile(workDir, args.get(0) + "-", ".out");
      ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile())
          .redirectOutput(out.toFile());
      Map<String, String> env = pb.environment();
      env.put("OPENAI_BASE_URL", server.baseUrl());
      env.put("OPENAI_API_KEY", API_KEY);
      env.put("LOOPFLOW_PLAIN_PROGRESS", "1");
      env.remove("LOOPFLOW_STORE");
      long launched = System.nanoTime();
      return new Cli(pb.start(), launched, out);
    }

    private void readStderr() {
      try (BufferedReader r = process.errorReader(StandardCharsets.UTF_8)) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          if (line.contains(" started")) {
            firstNodeStarted.complete(System.nanoTime());
          }
          stderr.add(line);
          lastLine = System.nanoTime();
        }
      } catch (IOException e) {
        stderr.add("(stderr unreadable: " + e + ")");
      } finally {
        firstNodeStarted.completeExceptionally(new IllegalStateException("the process ended before a node started"));
      }
    }

    /** When the first node started, per this process's progress on stderr. */
    long firstNodeStarted() throws Exception {
      try {
        return firstNodeStarted.get(PROCESS_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
        process.destroyForcibly();
        throw new AssertionError("no node started: " + finish(), e);
      }
    }

    Outcome finish() throws InterruptedException, IOException {
      if (!process.waitFor(PROCESS_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
      reader.join(PROCESS_TIMEOUT.toMillis());
      List<String> lines;
      synchronized (stderr) {
        lines = List.copyOf(stderr);
      }
      return new Outcome(process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8),
          String.join("\n", lines));
    }
  }
}
