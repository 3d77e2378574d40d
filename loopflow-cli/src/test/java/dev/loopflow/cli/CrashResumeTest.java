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
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * OpenAI-compatible LLM (a fake server) and runs shell commands, and the run is then resumed in new processes until it
 * completes. For each workflow and every trial this proves that the first process started after the kill completes the
 * run, that the run ends exactly as an uninterrupted run does (status, output, state, and every node's status and
 * output), that no LLM call is made again for a node execution that had completed (only the call in flight when the
 * process died may be made twice), and that the API key never reaches the SQLite journal.
 *
 * <p>Kill delays come from a seeded generator; the seed and every trial's delay are printed, and
 * {@code -Dcrash.seed=N} replays the same delays. Most kills land between the run's first node start and the end
 * of an uninterrupted run; about one in ten lands during process start-up, possibly before the run is journaled, in
 * which case the run is started again under the same id.
 */
// Slow (dozens of processes killed with SIGKILL and resumed): -DexcludedGroups=slow skips it locally; CI runs it.
@org.junit.jupiter.api.Tag("slow")
@DisabledOnOs(OS.WINDOWS)
class CrashResumeTest {
  private static final String API_KEY = "sk-test-crash-harness-secret";
  // Ten kills per workflow keep the default suite within its time budget; the seed differs on every run, so the
  // moments covered accumulate across runs. -Dcrash.trials=N runs more (20 is the thorough setting).
  private static final int TRIALS = Integer.getInteger("crash.trials", 10);
  private static final int PARALLEL_TRIALS = Math.min(4, Runtime.getRuntime().availableProcessors() + 1);
  private static final double START_UP_KILLS = 0.1;
  private static final int MAX_RESUMES = 3;
  private static final int APPROVED_AT_TAKE = 5;
  private static final Duration LATENCY = Duration.ofMillis(50);
  private static final Duration PROCESS_TIMEOUT = Duration.ofSeconds(60);
  private static final Pattern TAG = Pattern.compile("\\[(\\w+) #(\\d+)]");
  private static final Pattern TAKE = Pattern.compile("take (\\d+)");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long SEED = Long.getLong("crash.seed", ThreadLocalRandom.current().nextLong());

  private static final List<FakeServer> servers = new ArrayList<>();
  private static List<String> jvm;

  @TempDir
  static Path shared;

  @TempDir
  Path dir;

  @BeforeAll
  static void prepare() throws Exception {
    System.out.printf("CrashResumeTest: crash.seed=%d (replay the kill delays with -Dcrash.seed=%d)%n", SEED, SEED);
    for (int i = 0; i < PARALLEL_TRIALS; i++) {
      servers.add(FakeOpenAiServer.start());
    }
    jvm = launcher();
  }

  @AfterAll
  static void stopServers() {
    servers.forEach(FakeServer::close);
    servers.clear();
  }

  static Stream<String> workflows() {
    return Stream.of("while-drafting", "edge-coder-reviewer", "group-sessions", "pipeline-restarts");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("workflows")
  @Timeout(value = 15, unit = TimeUnit.MINUTES) // a hang guard for ten kills and their resumes on a loaded machine
  void runKilledAtARandomMomentResumesToTheUninterruptedResultRepeatingOnlyTheCallInFlight(String name)
      throws Exception {
    long began = System.nanoTime();
    Path workflow = fixture(name);
    Baseline baseline = baseline(workflow, servers.get(0));
    System.out.printf("%s: uninterrupted run %d ms after %d ms of start-up, LLM calls %s, result %s%n", name,
        baseline.runMillis, baseline.startUpMillis, baseline.calls.keySet(), baseline.comparable);

    Random random = new Random(SEED ^ name.hashCode());
    ConcurrentLinkedQueue<Trial> pending = new ConcurrentLinkedQueue<>();
    for (int i = 1; i <= TRIALS; i++) {
      boolean startUp = random.nextDouble() < START_UP_KILLS;
      long bound = startUp ? baseline.startUpMillis : baseline.runMillis;
      pending.add(new Trial(i, startUp, (long) (random.nextDouble() * bound)));
    }
    Map<Integer, TrialResult> results = new ConcurrentSkipListMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(servers.size());
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (FakeServer server : servers) {
        workers.add(pool.submit(() -> {
          for (Trial t = pending.poll(); t != null; t = pending.poll()) {
            TrialResult r;
            try {
              r = trial(name, workflow, t, server);
            } catch (Exception | AssertionError e) {
              r = TrialResult.broken(t, e.toString(), callsPerNodeIteration(server.requests()));
            }
            results.put(t.number, r);
            System.out.printf("%s trial %2d: kill %4d ms after %s: %s, %d resume(s), LLM calls %d%n", name, t.number,
                t.delayMillis, t.from(), r.detail, r.resumes, r.calls.values().stream().mapToInt(i -> i).sum());
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
    List<String> broken = new ArrayList<>();
    List<String> resumesUnfinished = new ArrayList<>();
    List<String> resultsDiffer = new ArrayList<>();
    List<String> callsRepeated = new ArrayList<>();
    List<String> usageDiffers = new ArrayList<>();
    for (TrialResult r : results.values()) {
      String where = name + " trial " + r.trial.number + " (crash.seed=" + SEED + ", kill " + r.trial.delayMillis
          + " ms after " + r.trial.from() + ", " + r.detail + ")";
      if (r.kill == Kill.BROKEN) {
        broken.add(where);
        continue;
      }
      r.unfinished.forEach(u -> resumesUnfinished.add(where + ": " + u));
      if (!r.comparable.equals(baseline.comparable)) {
        resultsDiffer.add(where + ":\n  expected " + baseline.comparable + "\n  but was  " + r.comparable);
      }
      List<String> differ = callDifferences(baseline.calls, r.calls);
      if (differ.size() > 1 || differ.stream().anyMatch(d -> !d.endsWith("+1"))) {
        callsRepeated.add(where + ": LLM calls per (node, iteration) unlike the uninterrupted run's: " + differ);
      }
      // After a resume the run's usage is the journal's plus the re-run node's: the call in flight at the kill may
      // have been journaled (as an llm.call) before its node completed, and the re-run node makes it again.
      if (Math.abs(r.llmCalls - baseline.llmCalls) > 1) {
        usageDiffers.add(where + ": usage.llm_calls " + r.llmCalls + ", uninterrupted " + baseline.llmCalls);
      }
    }
    Map<Kill, Long> kinds = new TreeMap<>();
    results.values().forEach(r -> kinds.merge(r.kill, 1L, Long::sum));
    System.out.printf("%s: %d trials in %d s: %s%n", name, TRIALS,
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began), kinds);

    assertThat(broken).as("trials that could not complete the run").isEmpty();
    assertThat(resumesUnfinished).as("resumes that ended without completing the run").isEmpty();
    assertThat(resultsDiffer).as("resumed runs whose result differs from an uninterrupted run's").isEmpty();
    assertThat(callsRepeated).as("resumed runs that repeated LLM calls of completed node executions").isEmpty();
    assertThat(usageDiffers).as("resumed runs whose usage.llm_calls is off by more than the call in flight")
        .isEmpty();
    // Most delays fall inside the run (about 80%); requiring 30% keeps the check meaningful (the harness must
    // mostly kill running runs) without failing on an unlucky draw of ten.
    assertThat(kinds.getOrDefault(Kill.MID_RUN, 0L)).as("trials killed while the run was going on")
        .isGreaterThanOrEqualTo(Math.max(1, TRIALS * 3 / 10));
  }

  private Baseline baseline(Path workflow, FakeServer server) throws Exception {
    Path runDir = Files.createDirectories(dir.resolve("uninterrupted"));
    respond(server);
    Cli cli = Cli.start(jvm, runDir, server, List.of("run", workflow.toString(), "--store",
        "sqlite:" + runDir.resolve("runs.db"), "--run-id", "uninterrupted", "--json"));
    long firstNode = cli.firstNodeStarted();
    Outcome done = cli.finish();
    assertThat(done.exit).as("uninterrupted run: %s", done).isZero();
    List<RecordedRequest> requests = server.requests();
    assertThat(requests).isNotEmpty()
        .allSatisfy(r -> assertThat(r.header("Authorization")).isEqualTo("Bearer " + API_KEY));
    Map<String, Integer> calls = callsPerNodeIteration(requests);
    assertThat(calls).as("LLM calls per (node, iteration) of the uninterrupted run").isNotEmpty()
        .doesNotContainKey("untagged").allSatisfy((key, count) -> assertThat(count).as(key).isOne());
    assertNoSecretIn(runDir);
    JsonNode result = JSON.readTree(done.stdout);
    return new Baseline(comparable(result), result.path("usage").path("llm_calls").asInt(), calls,
        TimeUnit.NANOSECONDS.toMillis(firstNode - cli.launched),
        TimeUnit.NANOSECONDS.toMillis(cli.lastLine - firstNode));
  }

  private TrialResult trial(String name, Path workflow, Trial t, FakeServer server) throws Exception {
    Path trialDir = Files.createDirectories(dir.resolve("trial-" + t.number));
    String store = "sqlite:" + trialDir.resolve("runs.db");
    String runId = name + "-" + t.number;
    List<String> run = List.of("run", workflow.toString(), "--store", store, "--run-id", runId, "--json");
    respond(server);
    Cli cli = Cli.start(jvm, trialDir, server, run);
    Outcome last = null;
    Kill kill = null;
    try {
      if (!t.startUp) {
        cli.firstNodeStarted();
      }
      if (cli.process.waitFor(t.delayMillis, TimeUnit.MILLISECONDS)) {
        last = cli.finish();
        kill = Kill.NOT_KILLED;
      } else {
        cli.process.destroyForcibly().waitFor();
      }
    } finally {
      cli.process.destroyForcibly();
    }
    int resumes = 0;
    List<String> unfinished = new ArrayList<>();
    while (last == null || last.exit != 0) {
      if (resumes == MAX_RESUMES) {
        return TrialResult.broken(t, "no completed run after " + resumes + " resumes; last: " + last,
            callsPerNodeIteration(server.requests()));
      }
      resumes++;
      Outcome resumed = Cli.start(jvm, trialDir, server, List.of("resume", runId, "--store", store, "--json",
          "--quiet")).finish();
      Kill seen = Kill.MID_RUN;
      if (resumed.exit == 2 && resumed.stderr.contains("no run '" + runId + "'")) {
        seen = Kill.BEFORE_JOURNAL;
        resumed = Cli.start(jvm, trialDir, server, List.of("run", workflow.toString(), "--store", store, "--run-id",
            runId, "--json", "--quiet")).finish();
      } else if (resumed.exit == 2 && resumed.stderr.contains(runId + " is completed")) {
        seen = Kill.AFTER_COMPLETION;
        resumed = Cli.start(jvm, trialDir, server, List.of("show", runId, "--store", store, "--json")).finish();
      }
      kill = kill == null ? seen : kill;
      if (resumed.exit != 0) {
        unfinished.add(resumed.toString());
      }
      last = resumed;
    }
    assertNoSecretIn(trialDir);
    JsonNode result = JSON.readTree(last.stdout);
    return new TrialResult(t, kill, kill.detail, resumes, unfinished, comparable(result),
        callsPerNodeIteration(server.requests()), result.path("usage").path("llm_calls").asInt());
  }

  /** The (node, iteration) pairs whose call count differs from the uninterrupted run's, as {@code key+N}. */
  private static List<String> callDifferences(Map<String, Integer> expected, Map<String, Integer> actual) {
    Map<String, Integer> all = new TreeMap<>(expected);
    actual.keySet().forEach(k -> all.putIfAbsent(k, 0));
    List<String> differ = new ArrayList<>();
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
        // A pipeline stage: its JSON output restarts the writer until the third iteration.
        case "judge" -> Integer.parseInt(iteration) < 3 ? "{\"restart\": {\"target_stage_id\": \"write\", "
            + "\"reason\": \"take " + iteration + " is weak (" + digest + ")\"}}" : "accepted " + digest;
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
      if (r.path().endsWith("/chat/completions")) {
        JsonNode messages = r.json().path("messages");
        Matcher tag = TAG.matcher(text(messages.get(messages.size() - 1)));
        calls.merge(tag.find() ? tag.group(1) + "#" + tag.group(2) : "untagged", 1, Integer::sum);
      }
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
    if (result.has("pipeline")) {
      view.set("pipeline", result.get("pipeline"));
    }
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

  private static void assertNoSecretIn(Path runDir) throws IOException {
    byte[] secret = API_KEY.getBytes(StandardCharsets.UTF_8);
    // The database, its -wal and -shm files, and the completion logs a killed process left in runs.db-log/.
    try (Stream<Path> files = Files.walk(runDir)) {
      for (Path f : files.filter(p -> runDir.relativize(p).toString().startsWith("runs.db"))
          .filter(Files::isRegularFile).toList()) {
        assertThat(indexOf(Files.readAllBytes(f), secret)).as("offset of the API key in %s", f).isEqualTo(-1);
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

  /**
   * The command that starts a CLI process. Process start-up dominates this test's time, so class directories are
   * packed into jars and one training run dumps a class-data archive that every later process maps, which takes
   * about a third off each start; if the dump fails, processes start without it. JVM warnings go to stderr, so
   * stdout stays one JSON object.
   */
  private static List<String> launcher() throws Exception {
    List<String> entries = new ArrayList<>();
    for (String entry : TestJvm.classPath()) {
      Path path = Path.of(entry).toAbsolutePath();
      if (Files.isDirectory(path)) {
        path = jar(path, shared.resolve("classes-" + entries.size() + ".jar"));
      }
      entries.add(path.toString());
    }
    List<String> plain = List.of(ProcessHandle.current().info().command().orElse("java"), "-XX:TieredStopAtLevel=1",
        "-Xlog:disable", "-Xlog:all=warning:stderr", "--enable-native-access=ALL-UNNAMED", "-cp",
        String.join(File.pathSeparator, entries));
    Path archive = shared.resolve("cli.jsa");
    List<String> training = new ArrayList<>(plain);
    training.add(1, "-XX:ArchiveClassesAtExit=" + archive);
    FakeServer server = servers.get(0);
    respond(server);
    Outcome trained = Cli.start(training, shared, server, List.of("run", fixture("group-sessions").toString(),
        "--store", "sqlite:" + shared.resolve("training.db"), "--json", "--quiet")).finish();
    if (trained.exit != 0 || !Files.isRegularFile(archive)) {
      System.out.println("CrashResumeTest: CLI processes start without a class-data archive; dumping one gave "
          + trained);
      return plain;
    }
    List<String> archived = new ArrayList<>(plain);
    archived.add(1, "-XX:SharedArchiveFile=" + archive);
    return archived;
  }

  private static Path jar(Path classes, Path jar) throws IOException {
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        Stream<Path> files = Files.walk(classes)) {
      for (Path f : files.filter(p -> !p.equals(classes)).sorted().toList()) {
        String name = classes.relativize(f).toString().replace(File.separatorChar, '/');
        if (Files.isDirectory(f)) {
          out.putNextEntry(new JarEntry(name + "/"));
        } else {
          out.putNextEntry(new JarEntry(name));
          Files.copy(f, out);
        }
        out.closeEntry();
      }
    }
    return jar;
  }

  private enum Kill {
    MID_RUN("killed mid-run"),
    BEFORE_JOURNAL("killed before the run was journaled, started again"),
    AFTER_COMPLETION("killed after the run completed"),
    NOT_KILLED("finished before the kill"),
    BROKEN("broken");

    final String detail;

    Kill(String detail) {
      this.detail = detail;
    }
  }

  private record Trial(int number, boolean startUp, long delayMillis) {
    String from() {
      return startUp ? "process start" : "the first node started";
    }
  }

  private record Baseline(JsonNode comparable, int llmCalls, Map<String, Integer> calls, long startUpMillis,
      long runMillis) {}

  private record TrialResult(Trial trial, Kill kill, String detail, int resumes, List<String> unfinished,
      JsonNode comparable, Map<String, Integer> calls, int llmCalls) {
    static TrialResult broken(Trial trial, String why, Map<String, Integer> calls) {
      return new TrialResult(trial, Kill.BROKEN, why, 0, List.of(), JSON.createObjectNode(), calls, -1);
    }
  }

  private record Outcome(int exit, String stdout, String stderr) {
    @Override
    public String toString() {
      return "exit " + exit + "\nstdout: " + stdout + "\nstderr: " + stderr;
    }
  }

  /** One CLI process: stdout goes to a file, stderr is read line by line to see when the first node starts. */
  private static final class Cli {
    final Process process;
    final long launched;
    final Path stdout;
    final List<String> stderr = new CopyOnWriteArrayList<>();
    final CompletableFuture<Long> firstNodeStarted = new CompletableFuture<>();
    final Thread reader;
    volatile long lastLine;

    private Cli(Process process, long launched, Path stdout) {
      this.process = process;
      this.launched = launched;
      this.stdout = stdout;
      this.reader = Thread.ofPlatform().daemon().start(this::readStderr);
    }

    static Cli start(List<String> jvm, Path workDir, FakeServer server, List<String> args) throws IOException {
      List<String> command = new ArrayList<>(jvm);
      command.add("dev.loopflow.cli.Main");
      command.addAll(args);
      Path out = Files.createTempFile(workDir, args.get(0) + "-", ".out");
      ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile()).redirectOutput(out.toFile());
      pb.environment().put("OPENAI_BASE_URL", server.baseUrl());
      pb.environment().put("OPENAI_API_KEY", API_KEY);
      pb.environment().put("LOOPFLOW_PLAIN_PROGRESS", "1");
      pb.environment().remove("LOOPFLOW_STORE");
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

    long firstNodeStarted() throws Exception {
      try {
        return firstNodeStarted.get(PROCESS_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        process.destroyForcibly();
        throw new AssertionError("no node started: " + finish(), e);
      }
    }

    Outcome finish() throws InterruptedException, IOException {
      if (!process.waitFor(PROCESS_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
      reader.join(PROCESS_TIMEOUT.toMillis());
      return new Outcome(process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8),
          String.join("\n", stderr));
    }
  }
}
