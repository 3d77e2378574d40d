package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web run viewer in a real Chromium against the real server: this class starts a server over a SQLite store with
 * the fixture workflows of {@code loopflow-ui/e2e/workflows}, then runs each scenario script of {@code loopflow-ui/e2e}
 * with Node.js (playwright-core driving Debian's {@code /usr/bin/chromium}). A script prints what it checked and exits
 * 0 only after {@code PASS <name>}; on failure it prints the reason and every console error, uncaught exception and
 * failed request the pages reported.
 *
 * <p>Node.js and Chromium are required, not optional: without them every test here fails saying what to install (CI
 * installs both). With {@code LOOPFLOW_UI_SCREENSHOTS=DIR} (relative to the repository root) the scenarios also save
 * the documentation's screenshots there.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunViewerBrowserTest {
  private static final String TOKEN = "e2e-token-5b0d7c93";
  /** Every scenario script; a script added to the folder without a test here fails everyScenarioScriptIsRun. */
  private static final Set<String> SCENARIOS = Set.of("auth.mjs", "live-loop.mjs", "nested-loops.mjs",
      "approvals.mjs", "failing-run.mjs", "hostile-content.mjs", "reconnect.mjs", "api-started-run.mjs",
      "regressions.mjs");
  /** The shared helpers, and the UI's own smoke check for a server started by hand (see loopflow-ui/README.md). */
  private static final Set<String> NOT_SCENARIOS = Set.of("lib.mjs", "smoke.mjs");
  /** Longer than a script's own limit, so a script normally reports its own timeout first. */
  private static final Duration SCRIPT_LIMIT = Duration.ofSeconds(120);

  @TempDir static Path home;

  private Path root;
  private Path e2e;
  private Path node;
  private RunStore store;
  private LoopflowServer server;
  private final List<String> serverLog = new CopyOnWriteArrayList<>();

  @BeforeAll
  void startServer() throws IOException {
    root = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize().getParent();
    e2e = root.resolve("loopflow-ui/e2e");
    assertThat(e2e.resolve("lib.mjs")).as("the browser scenarios' folder").exists();
    node = requireNode();
    requireChromium();
    if (!Files.isDirectory(root.resolve("loopflow-ui/node_modules/playwright-core"))) {
      fail("loopflow-ui/node_modules/playwright-core is missing: build the web UI first (mvn -pl loopflow-server -am "
          + "runs its 'npm ci'), with PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 set; the tests drive /usr/bin/chromium");
    }
    Path workflows = home.resolve("workflows");
    Files.createDirectories(workflows);
    try (Stream<Path> files = Files.list(e2e.resolve("workflows"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        Files.copy(f, workflows.resolve(f.getFileName()));
      }
    }
    store = JdbcStores.open("sqlite:" + home.resolve("loopflow.db"));
    server = LoopflowServer.builder().store(store).workflowsDir(workflows).token(TOKEN).port(0)
        .heartbeat(Duration.ofSeconds(1)).log(serverLog::add).build().start();
  }

  @AfterAll
  void stopServer() {
    if (server != null) {
      server.close();
    }
    if (store != null) {
      store.close();
    }
  }

  @Test
  void withoutATokenThePageExplainsHowToOpenItAndTheTokenLeavesTheAddressBar() {
    runScenario("auth.mjs");
  }

  @Test
  void aLoopRunStartedFromTheFormShowsItsPassesLiveAndEveryNode() {
    runScenario("live-loop.mjs");
  }

  @Test
  void aPassOfANestedLoopInsideAChosenOuterPassShowsThatPassesValues() {
    runScenario("nested-loops.mjs");
  }

  @Test
  void pausedRunsAreApprovedRejectedAndAnsweredFromTheRunPage() {
    runScenario("approvals.mjs");
  }

  @Test
  void aFailureIsShownOpenOnItsNodeAndPass() {
    runScenario("failing-run.mjs");
  }

  @Test
  void hostileNamesOutputsAndMessagesRenderAsText() {
    runScenario("hostile-content.mjs");
  }

  @Test
  void reloadingARunningRunsPageNeitherRepeatsNorLosesPasses() {
    runScenario("reconnect.mjs");
  }

  @Test
  void aRunStartedThroughTheApiShowsEveryNodeAndItsPassCounts() {
    runScenario("api-started-run.mjs");
  }

  @Test
  void aTokenLinkOpenedInTheTabThatAskedForItLogsIn_bugFragmentOnlyNavigationKeptTheExplanation() {
    runScenario("regressions.mjs", "token-link-in-same-tab");
  }

  @Test
  void clickingAGraphNodeShowsItsExecution_bugGraphNodesIgnoredThePointer() {
    runScenario("regressions.mjs", "graph-node-click");
  }

  @Test
  void everyScenarioScriptIsRun() throws IOException {
    try (Stream<Path> files = Files.list(e2e)) {
      Set<String> scripts = files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".mjs") && !NOT_SCENARIOS.contains(n)).collect(Collectors.toCollection(TreeSet::new));
      assertThat(scripts).as("scenario scripts in loopflow-ui/e2e").isEqualTo(new TreeSet<>(SCENARIOS));
    }
  }

  private void runScenario(String script, String... args) {
    assertThat(SCENARIOS).contains(script);
    List<String> command = new java.util.ArrayList<>(List.of(node.toString(), e2e.resolve(script).toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(root.resolve("loopflow-ui").toFile())
        .redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.put("LOOPFLOW_URL", server.url());
    env.put("LOOPFLOW_TOKEN", TOKEN);
    // where a failing scenario leaves a picture of each of its pages
    env.put("LOOPFLOW_E2E_ARTIFACTS", root.resolve("loopflow-server/target/browser-e2e").toString());
    String shots = screenshotsDir();
    if (shots != null) {
      env.put("LOOPFLOW_UI_SCREENSHOTS", shots);
    } else {
      env.remove("LOOPFLOW_UI_SCREENSHOTS");
    }
    int logBefore = serverLog.size();
    long start = System.nanoTime();
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + node + " " + script, e);
    }
    StringBuilder out = new StringBuilder();
    Thread reader = Thread.ofVirtual().start(() -> drain(p.getInputStream(), out));
    boolean ended;
    try {
      ended = p.waitFor(SCRIPT_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
      if (!ended) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
      reader.join(Duration.ofSeconds(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new IllegalStateException(e);
    }
    String output;
    synchronized (out) {
      output = out.toString();
    }
    long ms = Duration.ofNanos(System.nanoTime() - start).toMillis();
    System.out.println("--- " + script + " (" + ms + " ms)\n" + output);
    List<String> newLog = serverLog.subList(logBefore, serverLog.size());
    String context = "\n--- output of " + script + ":\n" + output
        + (newLog.isEmpty() ? "" : "\n--- server log:\n" + String.join("\n", newLog));
    if (!ended) {
      fail(script + " did not end within " + SCRIPT_LIMIT.toSeconds() + " s and was killed" + context);
    }
    assertThat(p.exitValue()).as("exit status of " + script + context).isZero();
    assertThat(output).as("the outcome line of " + script).containsPattern("(?m)^PASS ");
    assertThat(newLog).as("what the server logged during " + script).isEmpty();
  }

  private static void drain(InputStream in, StringBuilder out) {
    byte[] buf = new byte[8192];
    try (in) {
      int n;
      while ((n = in.read(buf)) > 0) {
        synchronized (out) {
          out.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        }
      }
    } catch (IOException e) {
      synchronized (out) {
        out.append("\n(reading the output failed: ").append(e.getMessage()).append(")");
      }
    }
  }

  /** The screenshot folder asked for, absolute (a relative one is taken from the repository root), or null. */
  private String screenshotsDir() {
    String dir = System.getenv("LOOPFLOW_UI_SCREENSHOTS");
    if (dir == null || dir.isBlank()) {
      dir = System.getProperty("loopflow.ui.screenshots");
    }
    return dir == null || dir.isBlank() ? null : root.resolve(dir).toAbsolutePath().normalize().toString();
  }

  private static Path requireNode() {
    String install = "; install Node.js 20.19 or newer (Debian: apt-get install nodejs npm), as CI does";
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, "node");
      if (Files.isExecutable(candidate)) {
        String version = run(candidate.toString(), "--version");
        if (version == null || !version.matches("v(2[0-9]|[3-9][0-9])\\..*")) {
          fail("the browser tests need Node.js 20 or newer, found " + candidate + " " + version + install);
        }
        return candidate;
      }
    }
    fail("the browser tests need Node.js ('node' is not on the PATH)" + install);
    return null;
  }

  private static void requireChromium() {
    String chromium = System.getenv().getOrDefault("LOOPFLOW_CHROMIUM", "/usr/bin/chromium");
    if (!Files.isExecutable(Path.of(chromium))) {
      fail("the browser tests need Chromium at " + chromium + "; install it (Debian: apt-get install chromium), as "
          + "CI does, or name another Chromium binary in LOOPFLOW_CHROMIUM");
    }
  }

  /** The first line a short command prints, or null when it cannot run. */
  private static String run(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      return p.waitFor(20, TimeUnit.SECONDS) ? text.lines().findFirst().orElse("") : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
