package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import dev.loopflow.store.jdbc.workers.RunQueue;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.FakeServer;
import dev.loopflow.testkit.PostgresServer;
import dev.loopflow.testkit.RecordedRequest;
import dev.loopflow.testkit.Reply;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Worker processes on a throwaway PostgreSQL: runs queued in the store are executed by `loopflow worker` processes
 * (real JVMs), which are killed with SIGKILL at random moments or stopped with SIGSTOP past their lease. Every run
 * must complete exactly once with the result of an uninterrupted run: one completed journal row per node execution
 * (a completed execution is never repeated), one run.finished, and an LLM call repeated only when it was in flight
 * on a worker that lost the run.
 *
 * <p>Kill moments come from a seeded generator ({@code -Dworkers.seed=N} replays them); {@code -Dworkers.kills=N}
 * sets the number of kills (default 20).
 */
// Slow (worker processes killed and revived on PostgreSQL): -DexcludedGroups=slow skips it locally; CI runs it.
@org.junit.jupiter.api.Tag("slow")
@DisabledOnOs(OS.WINDOWS)
class WorkerClusterTest {
  private static final int KILLS = Integer.getInteger("workers.kills", 20);
  private static final long SEED = Long.getLong("workers.seed", ThreadLocalRandom.current().nextLong());
  private static final Pattern TAG = Pattern.compile("\\[(\\w+) #(\\d+)] <([^>]+)> approve at (\\d+)");
  private static final Duration LATENCY = Duration.ofMillis(40);
  private static FakeServer llm;
  private static String database;
  private static String storeUrl;

  @TempDir
  Path dir;

  private final List<Worker> workers = new CopyOnWriteArrayList<>();
  private RunStore store;
  private Loopflow engine;
  private Workflow workflow;

  @BeforeAll
  static void startServers() {
    llm = FakeOpenAiServer.start();
    llm.respondWith(WorkerClusterTest::reply);
    database = "workers_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
    storeUrl = PostgresServer.shared().createDatabase(database);
    System.out.printf("WorkerClusterTest: workers.seed=%d%n", SEED);
  }

  @AfterAll
  static void stopServers() {
    llm.close();
  }

  @BeforeEach
  void openStore() throws Exception {
    store = JdbcStores.open(storeUrl);
    engine = Loopflow.builder().store(store).build();
    workflow = engine.load(Path.of(WorkerClusterTest.class.getResource("/workers/drafts.yaml").toURI()));
  }

  @AfterEach
  void stopWorkers() {
    for (Worker w : workers) {
      w.process.destroyForcibly();
    }
    store.close();
  }

  /** Draft N names its pass and its run; a review approves once the pass reaches the run's approve_at. */
  private static Reply reply(RecordedRequest r) {
    JsonNode messages = r.json().path("messages");
    String prompt = messages.get(messages.size() - 1).path("content").asText();
    Matcher m = TAG.matcher(prompt);
    if (!m.find()) {
      return Reply.text("untagged").after(LATENCY);
    }
    int pass = Integer.parseInt(m.group(2));
    String text = m.group(1).equals("draft") ? "take " + pass + " on " + m.group(3)
        : pass >= Integer.parseInt(m.group(4)) ? "APPROVED take " + pass : "revise take " + pass;
    return Reply.text(text).after(m.group(3).startsWith("slow") ? Duration.ofMillis(400) : LATENCY);
  }

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void threeWorkersCompleteEveryQueuedRunExactlyOnce() throws Exception {
    for (int i = 0; i < 3; i++) {
      workers.add(Worker.start(dir, "w" + i, 3));
    }
    Map<String, Integer> runs = enqueue("three", 30);
    // One more through the command line: run --detach prints the id of a run it queued.
    Worker cli = Worker.cli(dir, List.of("run", workflowPath().toString(), "--store", storeUrl, "--detach",
        "--input", "topic=three-cli", "--input", "approve_at=2"));
    assertThat(cli.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(cli.process.exitValue()).as(cli.stderrText()).isZero();
    String detached = new String(cli.process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(detached).startsWith("run_");
    runs.put(detached, 2);
    awaitAll(runs, Duration.ofSeconds(120));
    for (Map.Entry<String, Integer> r : runs.entrySet()) {
      verify(r.getKey(), r.getValue(), 0);
    }
    // Each worker took some: the queue spreads runs over the workers that poll it.
    long took = workers.stream().limit(3).filter(w -> w.stderrText().contains("taken by")).count();
    assertThat(took).isGreaterThanOrEqualTo(2);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void workersKilledAtRandomMomentsLoseNoRunAndRepeatOnlyTheCallInFlight() throws Exception {
    Random random = new Random(SEED);
    for (int i = 0; i < 3; i++) {
      workers.add(Worker.start(dir, "k" + i, 2));
    }
    Map<String, Integer> runs = enqueue("kill", 12 + 3 * KILLS);
    int killed = 0;
    List<String> log = new ArrayList<>();
    while (killed < KILLS) {
      Thread.sleep(200 + random.nextInt(900));
      List<Worker> busy = workers.stream().filter(w -> w.process.isAlive() && w.holdsARun()).toList();
      if (busy.isEmpty()) {
        if (workers.stream().filter(w -> w.process.isAlive()).count() < 3) {
          continue;
        }
        if (runs.keySet().stream().allMatch(this::ended)) {
          break;
        }
        continue;
      }
      Worker victim = busy.get(random.nextInt(busy.size()));
      victim.process.destroyForcibly(); // SIGKILL
      killed++;
      log.add(victim.name + " (" + victim.taken() + " runs taken)");
      workers.add(Worker.start(dir, "k" + (workers.size()), 2));
    }
    System.out.printf("WorkerClusterTest: killed %d workers: %s%n", killed, log);
    awaitAll(runs, Duration.ofSeconds(180));
    int repeated = 0;
    for (Map.Entry<String, Integer> r : runs.entrySet()) {
      repeated += verify(r.getKey(), r.getValue(), Integer.MAX_VALUE);
    }
    long takeovers = runs.keySet().stream().mapToLong(id -> store.events(id).stream()
        .filter(e -> e instanceof Event.RunResumed).count() - 1).sum();
    System.out.printf("WorkerClusterTest: %d runs, %d kills, %d runs taken over from a killed worker, %d LLM calls "
        + "made twice (in flight at a kill)%n", runs.size(), killed, takeovers, repeated);
    // A kill before the killed worker's run.resumed was journaled leaves no trace of its attempt, so not every kill
    // shows as a takeover; most must (the harness would otherwise not be testing takeovers at all).
    assertThat(takeovers).as("runs continued by another worker").isGreaterThanOrEqualTo(killed / 2);
    assertThat(killed).as("kills landed on workers holding runs").isGreaterThanOrEqualTo(Math.min(KILLS, 10));
    assertThat(repeated).as("calls repeated").isLessThanOrEqualTo(killed * 2);
  }

  /** {@code -Dworkers.partition.trials=N} repeats the partition test N times (default 1). */
  static java.util.stream.IntStream partitionTrials() {
    return java.util.stream.IntStream.rangeClosed(1, Integer.getInteger("workers.partition.trials", 1));
  }

  /**
   * The worker is stopped inside one of its journal writes when that can be had (see stopInsideATransaction), so
   * the share lock of the write's lease-epoch check and the rows it inserted are held while another worker takes
   * the run over.
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "trial {0}")
  @org.junit.jupiter.params.provider.MethodSource("partitionTrials")
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  // Opt-in (-Dworkers.partition=true) for its length only: a trial takes over 20 s (22 to 35 s measured), most of
  // it the run lease (15 s, fixed) that the taker must wait out. StoppedInsideATransactionTest in the store module
  // checks the same guarantees without processes, in the default suite.
  @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "workers.partition", matches = "true")
  void aWorkerStoppedPastItsLeaseWritesNothingAfterItContinues_bugTakerWaitedOnTheStoppedWorkersRowLock(int trial)
      throws Exception {
    Worker a = Worker.start(dir, "paused", 1);
    workers.add(a);
    // A topic of its own, so that the calls counted for this run are this trial's when the test is repeated.
    Map<String, Integer> runs = enqueue("stop" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 40), 1,
        i -> 6);
    String id = runs.keySet().iterator().next();
    waitUntil(() -> store.nodeExecutions(id).size() >= 2, Duration.ofSeconds(60), "the first worker to get going");
    boolean insideATransaction = stopInsideATransaction(a, 300);
    System.out.printf("WorkerClusterTest: partition trial %d: the first worker was stopped %s a journal write%n",
        trial, insideATransaction ? "inside" : "outside");
    Worker taker = Worker.start(dir, "taker", 1);
    workers.add(taker);
    try {
      awaitAll(runs, Duration.ofSeconds(60));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + diagnostics(taker), e);
    }
    // The taker gives the lease up just after it journals the run's end.
    waitUntil(() -> store.lease(id).isEmpty(), Duration.ofSeconds(30), "the taker to release the run's lease");
    String before = journal(id);
    signal("CONT", a);
    // The continued worker finds its lease gone at its next write or renewal (at most the renewal period).
    waitUntil(() -> a.stderrText().contains("lease_lost"), Duration.ofSeconds(30),
        "the stopped worker to notice; it says:\n" + a.stderr);
    Thread.sleep(1000);
    assertThat(journal(id)).isEqualTo(before);
    verify(id, 6, Integer.MAX_VALUE);
  }

  /** A cancel from another process reaches the run on the worker executing it, with its reason. */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aCancelFromAnotherProcessStopsTheRunOnItsWorker_bugInterruptedJournalWriteClosedItsConnection()
      throws Exception {
    workers.add(Worker.start(dir, "cancels", 1));
    Map<String, Integer> runs = enqueue("slow", 1, i -> 6);
    String id = runs.keySet().iterator().next();
    waitUntil(() -> !store.nodeExecutions(id).isEmpty(), Duration.ofSeconds(60), "the worker to get going");
    RunStatus status = engine.cancel(id, "enough drafts", Duration.ofSeconds(20));
    RunRecord r = store.findRun(id).orElseThrow();
    assertThat(status).as("%s; worker: %s", r.error(), workers.get(0).stderrText()).isEqualTo(RunStatus.CANCELLED);
    assertThat(r.error().message()).isEqualTo("run cancelled: enough drafts");
    assertThat(store.nodeExecutions(id)).noneMatch(e -> e.position().path().equals("publish"));
  }

  /** A run that pauses on a worker is queued again with its answer and finished by a worker. */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aPausedRunQueuedWithItsAnswerIsFinishedByAWorker() throws Exception {
    workers.add(Worker.start(dir, "answers", 2));
    Workflow approval = engine.load(Path.of(WorkerClusterTest.class.getResource("/workers/approval.yaml").toURI()));
    RunQueue queue = RunQueue.of(engine);
    String id = queue.enqueue(approval, RunOptions.builder().workingDirectory(dir).build()).runId();
    waitUntil(() -> store.findRun(id).map(r -> r.status() == RunStatus.PAUSED).orElse(false), Duration.ofSeconds(60),
        "the run to pause");
    waitUntil(() -> !queue.isQueued(id), Duration.ofSeconds(60), "the paused run to leave the queue");
    queue.enqueueResume(id, dev.loopflow.core.run.ResumeInput.approve("looks good"));
    waitUntil(() -> ended(id) && store.findRun(id).get().status() != RunStatus.PAUSED, Duration.ofSeconds(60),
        "the answered run to end");
    RunRecord r = store.findRun(id).orElseThrow();
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo("shipped: approved (looks good)");
  }

  /** The server queues runs posted over HTTP; two workers execute them, one is killed mid-run; GET shows each. */
  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void runsPostedToAServerWithWorkerDispatchCompleteOnceWhenAWorkerIsKilled() throws Exception {
    java.net.URI base = startServer();
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    String source = java.nio.file.Files.readString(workflowPath());
    Map<String, Integer> runs = new LinkedHashMap<>();
    for (int i = 0; i < 12; i++) {
      int approveAt = 2 + i % 3;
      String body = new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(Map.of("source", source,
          "inputs", Map.of("topic", "http-" + i, "approve_at", approveAt)));
      var response = http.send(java.net.http.HttpRequest.newBuilder(base.resolve("/api/runs"))
          .header("Authorization", "Bearer test-token-123").header("Content-Type", "application/json")
          .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
      JsonNode created = new com.fasterxml.jackson.databind.ObjectMapper().readTree(response.body());
      assertThat(created.path("status").asText()).isEqualTo("running");
      runs.put(created.path("run_id").asText(), approveAt);
    }
    Worker first = Worker.start(dir, "h0", 3);
    workers.add(first);
    workers.add(Worker.start(dir, "h1", 3));
    waitUntil(first::holdsARun, Duration.ofSeconds(60), "the first worker to take a run");
    Thread.sleep(300);
    first.process.destroyForcibly();
    awaitAll(runs, Duration.ofSeconds(120));
    for (Map.Entry<String, Integer> r : runs.entrySet()) {
      verify(r.getKey(), r.getValue(), Integer.MAX_VALUE);
      var shown = http.send(java.net.http.HttpRequest.newBuilder(base.resolve("/api/runs/" + r.getKey()))
          .header("Authorization", "Bearer test-token-123").build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(shown.body()).path("status").asText())
          .isEqualTo("completed");
    }
  }

  /**
   * Stops the worker (SIGSTOP), inside one of its store's transactions when that can be had: a stop that lands
   * outside one is undone (SIGCONT) and tried again a moment later, up to {@code tries} times. Returns whether the
   * stopped worker is inside a transaction.
   */
  private boolean stopInsideATransaction(Worker w, int tries) throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(PostgresServer.shared().jdbcUrl(database));
        java.sql.PreparedStatement inside = c.prepareStatement("SELECT COUNT(*) FROM pg_stat_activity "
            + "WHERE datname = current_database() AND state LIKE 'idle in transaction%'")) {
      for (int i = 0; i < tries; i++) {
        signal("STOP", w);
        Thread.sleep(30); // the database finishes the statement it was sent and waits for the next
        try (java.sql.ResultSet rs = inside.executeQuery()) {
          rs.next();
          if (rs.getInt(1) > 0) {
            return true;
          }
        }
        signal("CONT", w);
        Thread.sleep(ThreadLocalRandom.current().nextInt(5, 40));
      }
      signal("STOP", w);
      return false;
    }
  }

  private static void signal(String name, Worker w) throws Exception {
    Runtime.getRuntime().exec(new String[] {"kill", "-" + name, Long.toString(w.process.pid())}).waitFor();
  }

  /** What the database's sessions wait on and hold, and the threads of worker {@code w}: why a takeover hangs. */
  private String diagnostics(Worker w) {
    StringBuilder out = new StringBuilder();
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(PostgresServer.shared().jdbcUrl(database));
        java.sql.Statement st = c.createStatement()) {
      for (String q : List.of("SELECT pid, application_name, state, wait_event_type, wait_event, xact_start, "
          + "state_change, pg_blocking_pids(pid) AS blocked_by, left(query, 300) AS query FROM pg_stat_activity "
          + "WHERE datname = current_database()",
          "SELECT l.pid, l.locktype, l.mode, l.granted, c.relname, l.page, l.tuple, l.transactionid, l.virtualxid "
          + "FROM pg_locks l LEFT JOIN pg_class c ON c.oid = l.relation WHERE l.database = (SELECT oid FROM "
          + "pg_database WHERE datname = current_database()) "
          + "OR l.locktype IN ('transactionid', 'virtualxid', 'tuple')")) {
        try (java.sql.ResultSet rs = st.executeQuery(q)) {
          int n = rs.getMetaData().getColumnCount();
          out.append("\n== ").append(q, 0, 40).append('\n');
          while (rs.next()) {
            for (int i = 1; i <= n; i++) {
              out.append(rs.getMetaData().getColumnLabel(i)).append('=').append(rs.getString(i)).append(' ');
            }
            out.append('\n');
          }
        }
      }
    } catch (Exception e) {
      out.append("db diag failed ").append(e);
    }
    try {
      Path java = Path.of(ProcessHandle.current().info().command().orElse("java"));
      Process p = new ProcessBuilder(java.resolveSibling("jstack").toString(), Long.toString(w.process.pid()))
          .redirectErrorStream(true).start();
      out.append("\n== jstack taker\n").append(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    } catch (Exception e) {
      out.append("jstack failed ").append(e);
    }
    return out.toString();
  }

  /**
   * A run executing on a worker, seen and steered through the server: its event stream shows the worker's events live
   * until run.finished, and a restart signal posted to the server reaches the run on the worker and is answered.
   */
  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void aRunOnAWorkerIsStreamedAndSignalledThroughTheServer() throws Exception {
    java.net.URI base = startServer();
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    workers.add(Worker.start(dir, "steered", 1));
    Path gate = dir.resolve("gate");
    String source = java.nio.file.Files.readString(Path.of(WorkerClusterTest.class.getResource(
        "/workers/restartable.yaml").toURI()));
    var created = http.send(java.net.http.HttpRequest.newBuilder(base.resolve("/api/runs"))
        .header("Authorization", "Bearer test-token-123").header("Content-Type", "application/json")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(json.writeValueAsString(Map.of("source", source,
            "inputs", Map.of("gate", gate.toString()))))).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    String id = json.readTree(created.body()).path("run_id").asText();

    List<String> stream = new CopyOnWriteArrayList<>();
    var events = http.sendAsync(java.net.http.HttpRequest.newBuilder(base.resolve("/api/runs/" + id + "/events"))
        .header("Authorization", "Bearer test-token-123").header("Accept", "text/event-stream").build(),
        java.net.http.HttpResponse.BodyHandlers.ofLines());
    Thread.ofVirtual().start(() -> events.join().body().forEach(stream::add));
    waitUntil(() -> store.nodeExecutions(id).stream().anyMatch(e -> e.position().nodeId().equals("implement")),
        Duration.ofSeconds(60), "the worker to run 'implement'; worker: " + workers.get(1).stderrText());
    waitUntil(() -> stream.contains("event: node.started"), Duration.ofSeconds(30),
        "the server's stream to show the worker's events");

    var answer = http.sendAsync(java.net.http.HttpRequest.newBuilder(base.resolve("/api/runs/" + id + "/signal"))
        .header("Authorization", "Bearer test-token-123").header("Content-Type", "application/json")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(json.writeValueAsString(Map.of("type", "restart",
            "target_stage_id", "implement", "reason", "tests fail", "requester_stage_id", "wait")))).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    waitUntil(() -> !store.commands(id).isEmpty(), Duration.ofSeconds(30), "the signal on the run's bus");
    java.nio.file.Files.writeString(Path.of(gate + "-1"), "go");
    var decided = answer.get(60, TimeUnit.SECONDS);
    assertThat(decided.statusCode()).as(decided.body()).isEqualTo(200);
    assertThat(json.readTree(decided.body()).path("success").asBoolean()).as(decided.body()).isTrue();
    assertThat(json.readTree(decided.body()).path("iteration").asInt()).isEqualTo(2);
    java.nio.file.Files.writeString(Path.of(gate + "-2"), "go");
    waitUntil(() -> ended(id), Duration.ofSeconds(60), "the run to end");
    RunRecord r = store.findRun(id).orElseThrow();
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo("implementation 2");
    waitUntil(() -> stream.contains("event: run.finished"), Duration.ofSeconds(30),
        "the stream to end with run.finished; it had: " + stream);
    assertThat(stream).contains("event: restart.accepted");
  }

  // ---------------------------------------------------------------------------------------------------------

  /** Starts `loopflow server --dispatch workers` on the test's store (token test-token-123); returns its address. */
  private java.net.URI startServer() throws IOException {
    Worker server = Worker.cli(dir, List.of("server", "--store", storeUrl, "--dispatch", "workers", "--port", "0",
        "--token", "test-token-123", "--workflows", dir.toString()));
    workers.add(server);
    String url;
    try (BufferedReader out = server.process.inputReader(StandardCharsets.UTF_8)) {
      url = out.readLine();
    }
    assertThat(url).as(server.stderrText()).contains("#token=");
    return java.net.URI.create(url.substring(0, url.indexOf('#')));
  }

  private Path workflowPath() throws Exception {
    return Path.of(WorkerClusterTest.class.getResource("/workers/drafts.yaml").toURI());
  }

  private Map<String, Integer> enqueue(String prefix, int n) throws Exception {
    return enqueue(prefix, n, i -> 1 + i % 3);
  }

  private Map<String, Integer> enqueue(String prefix, int n, java.util.function.IntUnaryOperator passes)
      throws Exception {
    Map<String, Integer> runs = new LinkedHashMap<>();
    RunQueue queue = RunQueue.of(engine);
    for (int i = 0; i < n; i++) {
      int approveAt = passes.applyAsInt(i);
      String topic = prefix + "-" + i;
      RunOptions opts = RunOptions.builder().input("topic", topic).input("approve_at", approveAt)
          .environment(Map.of("OPENAI_BASE_URL", llm.baseUrl(), "OPENAI_API_KEY", "sk-test-workers-0123456789"))
          .workingDirectory(dir).build();
      var r = queue.enqueue(workflow, opts);
      assertThat(r.status()).isEqualTo(RunStatus.RUNNING);
      runs.put(r.runId(), approveAt);
    }
    return runs;
  }

  private boolean ended(String id) {
    return store.findRun(id).map(r -> r.status() != RunStatus.RUNNING).orElse(false);
  }

  private void awaitAll(Map<String, Integer> runs, Duration limit) throws Exception {
    waitUntil(() -> {
      for (Worker w : workers) {
        if (!w.process.isAlive() && w.process.exitValue() != 137 && w.process.exitValue() != 0) {
          throw new AssertionError("worker " + w.name + " exited " + w.process.exitValue() + ": " + w.stderrText());
        }
      }
      return runs.keySet().stream().allMatch(this::ended);
    }, limit, "every run to end; workers:\n"
        + String.join("\n", workers.stream().map(w -> w.name + ": " + w.stderrText()).toList()));
  }

  private static void waitUntil(java.util.function.BooleanSupplier done, Duration limit, String what)
      throws InterruptedException {
    long until = System.nanoTime() + limit.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(100);
    }
  }

  /** Everything journaled for a run, as text: its record, executions and events. */
  private String journal(String id) {
    RunRecord r = store.findRun(id).orElseThrow();
    return r + "\n" + store.nodeExecutions(id) + "\n" + store.events(id).stream().map(Event::seq).toList()
        + "\n" + store.lease(id);
  }

  /**
   * Checks one run against what an uninterrupted run does; returns how many LLM calls of it were made twice. At most
   * one call may be repeated per time the run was taken over (a worker lost it with the call in flight).
   */
  private int verify(String id, int approveAt, int allowedRepeats) {
    RunRecord r = store.findRun(id).orElseThrow();
    String topic = String.valueOf(r.inputs().get("topic"));
    assertThat(r.status()).as(id + " " + r.error()).isEqualTo(RunStatus.COMPLETED);
    Map<String, Integer> completed = new TreeMap<>();
    for (NodeExecution e : store.nodeExecutions(id)) {
      if (e.status() == NodeStatus.COMPLETED) {
        completed.merge(e.position().path(), 1, Integer::sum);
      }
    }
    assertThat(completed.values()).as("completed executions of %s: %s", id, completed).allMatch(n -> n == 1);
    assertThat(completed).as(id).containsKeys("revise", "publish", "revise[" + approveAt + "].decide");
    assertThat(completed).as(id).doesNotContainKey("revise[" + (approveAt + 1) + "].draft");
    assertThat(String.valueOf(r.output())).startsWith(topic + " after " + approveAt + " drafts of ");
    // run.finished is written just after the run's final record, in a transaction of its own.
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos(); // a hang guard: the loop ends as soon as it is there
    while (store.events(id).stream().noneMatch(e -> e instanceof Event.RunFinished) && System.nanoTime() < until) {
      java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L);
    }
    List<Event> events = store.events(id);
    // Exactly one, however the workers were killed: the final record and run.finished are one write.
    assertThat(events.stream().filter(e -> e instanceof Event.RunFinished)).as(id).hasSize(1);
    List<String> resumedFrom = events.stream().filter(e -> e instanceof Event.RunResumed)
        .map(e -> ((Event.RunResumed) e).from()).toList();
    long takes = resumedFrom.size();
    // The first worker continues a queued run; a later one a run whose worker died after it began (or before it
    // journaled anything of its attempt, which looks queued again).
    assertThat(resumedFrom).as("run.resumed of %s", id).isNotEmpty().first().isEqualTo("queued");
    assertThat(resumedFrom).as("run.resumed of %s", id).allMatch(f -> f.equals("queued") || f.equals("crashed"));
    Map<String, Integer> calls = new TreeMap<>();
    for (RecordedRequest q : llm.requests()) {
      JsonNode messages = q.json().path("messages");
      Matcher m = TAG.matcher(messages.get(messages.size() - 1).path("content").asText());
      if (m.find() && m.group(3).equals(topic)) {
        calls.merge(m.group(1) + "#" + m.group(2), 1, Integer::sum);
      }
    }
    assertThat(calls).as("LLM calls of %s", id).hasSize(2 * approveAt);
    int repeated = calls.values().stream().mapToInt(n -> n - 1).sum();
    assertThat(repeated).as("calls of %s made again (%s), taken %d times", id, calls, takes)
        .isLessThanOrEqualTo((int) Math.min(allowedRepeats, Math.max(0, takes - 1)));
    return repeated;
  }

  /** A CLI process (a worker, or one command) with its stderr kept. */
  private static final class Worker {
    final String name;
    final Process process;
    final List<String> stderr = new CopyOnWriteArrayList<>();

    private Worker(String name, Process process) {
      this.name = name;
      this.process = process;
      Thread.ofPlatform().daemon().start(() -> {
        try (BufferedReader r = process.errorReader(StandardCharsets.UTF_8)) {
          for (String line = r.readLine(); line != null; line = r.readLine()) {
            stderr.add(line);
          }
        } catch (IOException e) {
          stderr.add("(stderr unreadable: " + e + ")");
        }
      });
    }

    static Worker start(Path dir, String name, int concurrency) throws IOException {
      return cli(dir, name, List.of("worker", "--store", storeUrl, "--name", name, "--concurrency",
          Integer.toString(concurrency), "--poll-ms", "200", "--heartbeat-ms", "250", "--missed-heartbeats", "4",
          "--drain-seconds", "5"));
    }

    static Worker cli(Path dir, List<String> args) throws IOException {
      return cli(dir, args.get(0), args);
    }

    private static Worker cli(Path dir, String name, List<String> args) throws IOException {
      List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
          "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-Xlog:disable", "-Xlog:all=warning:stderr",
          "--enable-native-access=ALL-UNNAMED", "-cp", TestJvm.classPathOption(), "dev.loopflow.cli.Main"));
      command.addAll(args);
      ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
      pb.environment().put("OPENAI_BASE_URL", llm.baseUrl());
      pb.environment().put("OPENAI_API_KEY", "sk-test-workers-0123456789");
      pb.environment().remove("LOOPFLOW_STORE");
      return new Worker(name, pb.start());
    }

    boolean holdsARun() {
      return taken() > ended();
    }

    long taken() {
      return stderr.stream().filter(l -> l.contains(": taken by ")).count();
    }

    long ended() {
      return stderr.stream().filter(l -> l.contains("handed back")
          || l.matches("loopflow: run \\S+: (completed|failed|cancelled|paused|stopped here).*")).count();
    }

    String stderrText() {
      return String.join("\n", stderr);
    }
  }
}
