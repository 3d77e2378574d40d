package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import java.io.IOException;
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
 * the fixture workflows of {@code loopflow-ui/e2e/workflows}, and one Node.js process ({@code loopflow-ui/e2e/run.mjs},
 * playwright-core driving Debian's {@code /usr/bin/chromium}) that runs the scenario each test names, in a fresh
 * browser context. A scenario prints what it checked and {@code PASS <name>}; on failure it prints the reason and every
 * console error, uncaught exception and failed request the pages reported.
 *
 * <p>Node.js and Chromium are required, not optional: without them every test here fails saying what to install (CI
 * installs both). With {@code LOOPFLOW_UI_SCREENSHOTS=DIR} (relative to the repository root) the scenarios also save
 * the documentation's screenshots there.
 */
// Slow (a real Chromium through every scenario): -DexcludedGroups=slow skips it locally; CI runs it.
@org.junit.jupiter.api.Tag("slow")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunViewerBrowserTest {
  private static final String TOKEN = "e2e-token-5b0d7c93";
  /** Every scenario file; a file added to the folder without a test here fails everyScenarioFileIsRun. */
  private static final Set<String> SCENARIOS = Set.of("auth.mjs", "live-loop.mjs", "nested-loops.mjs",
      "approvals.mjs", "failing-run.mjs", "hostile-content.mjs", "reconnect.mjs", "api-started-run.mjs",
      "regressions.mjs", "builder.mjs", "fork-and-compare.mjs",
      "builder-bugs.mjs", "long-loops.mjs", "views.mjs", "run-list.mjs", "human-form.mjs");
  /** The helpers, the runner, and the UI's own smoke check for a server started by hand (see loopflow-ui/README.md). */
  private static final Set<String> NOT_SCENARIOS = Set.of("lib.mjs", "run.mjs", "smoke.mjs");
  /** Longer than a scenario's own limit (lib.mjs), so a scenario normally reports its own timeout first. */
  private static final Duration SCRIPT_LIMIT = Duration.ofSeconds(120);

  @TempDir static Path home;

  private Path root;
  private Path e2e;
  private Path node;
  private RunStore store;
  private LoopflowServer server;
  private final List<String> serverLog = new CopyOnWriteArrayList<>();
  private Runner runner;

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
    if (runner != null) {
      // end of input: the runner closes its browser and exits
      runner.in.close();
      try {
        if (!runner.process.waitFor(15, TimeUnit.SECONDS)) {
          stopRunner();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stopRunner();
      }
    }
    if (server != null) {
      server.close();
    }
    if (store != null) {
      store.close();
    }
  }

  @Test
  void withoutATokenThePageExplainsHowToOpenItAndTheTokenLeavesTheAddressBar() {
    runScenario("auth");
  }

  @Test
  void aLoopRunStartedFromTheFormShowsItsPassesLiveAndEveryNode() {
    runScenario("live-loop");
  }

  @Test
  void aPassOfANestedLoopInsideAChosenOuterPassShowsThatPassesValues() {
    runScenario("nested-loops");
  }

  @Test
  void pausedRunsAreApprovedRejectedAndAnsweredFromTheRunPage() {
    runScenario("approvals");
  }

  @Test
  void aPausedStepsFormIsFilledRefusedAndSentFromTheRunPage() {
    runScenario("human-form");
  }

  @Test
  void aFailureIsShownOpenOnItsNodeAndPass() {
    runScenario("failing-run");
  }

  @Test
  void hostileNamesOutputsAndMessagesRenderAsText() {
    runScenario("hostile-content");
  }

  @Test
  void reloadingARunningRunsPageNeitherRepeatsNorLosesPasses() {
    runScenario("reconnect");
  }

  @Test
  void aRunStartedThroughTheApiShowsEveryNodeAndItsPassCounts() {
    runScenario("api-started-run");
  }

  @Test
  void aRunForkedFromAPassWithAStateEditShowsItsPlanFirstNamesItsOriginAndPassesCompare() {
    runScenario("fork-and-compare");
  }

  @Test
  void aTokenLinkOpenedInTheTabThatAskedForItLogsIn_bugFragmentOnlyNavigationKeptTheExplanation() {
    runScenario("regressions:token-link-in-same-tab");
  }

  @Test
  void clickingAGraphNodeShowsItsExecution_bugGraphNodesIgnoredThePointer() {
    runScenario("regressions:graph-node-click");
  }

  @Test
  void edgesStayDrawnWhileTheRunIsLive_bugLiveUpdatesDroppedTheEdgeEnds() {
    runScenario("regressions:live-graph-edges");
  }

  @Test
  void aFailureWatchedLiveOpensItsPassRow_bugRowOpenedOnlyWhenFailedWhenFirstDrawn() {
    runScenario("regressions:failure-watched-live");
  }

  @Test
  void anApprovalNodeShowsTheDecisionAndTheComment_bugApprovalShowedOnlyApproved() {
    runScenario("regressions:approval-comment-shown");
  }

  @Test
  void theRunListShowsTimeSoFarAndWhereARunFailed_bugEmptyDurationAndBareErrorCode() {
    runScenario("regressions:run-list-row");
  }

  @Test
  void aChosenEarlierPassReadsAsThatPassAndIsHighlighted_bugBadgeClaimedTheLoopExitAndLabelSatOnTheBox() {
    runScenario("regressions:chosen-pass");
  }

  @Test
  void theRunHeaderFactsFitOnOneLine_bugFactsWrappedWithLlmUsage() {
    runScenario("regressions:run-header-facts");
  }

  @Test
  void theBuilderPaletteOffersLoopAndExitUnderLogic() {
    runScenario("builder:palette");
  }

  @Test
  void selfRefineBuiltFromAnEmptyCanvasSavesRunsAndCountsThreePassesOnTheCanvas() {
    runScenario("builder:self-refine");
  }

  @Test
  void runFromTheBuilderAsksForTheDeclaredInputs() {
    runScenario("builder:run-inputs");
  }

  @Test
  void leavingTheBuilderWithUnsavedChangesAsksFirst() {
    runScenario("builder:leave-unsaved");
  }

  @Test
  void aBodyNodeOfANestedLoopGroupIsEditedInPlaceAndTheYamlFollows() {
    runScenario("builder:nested-edit");
  }

  @Test
  void anInvalidEditShowsItsProblemOnItsNodeAndBlocksSaving() {
    runScenario("builder:invalid");
  }

  @Test
  void aFileWithCommentsSavedUnchangedFromTheBuilderIsByteIdentical() {
    runScenario("builder:unchanged");
  }

  @Test
  void aTemplateChosenInTheBuilderOfASavedFileOpensANewWorkflowAndLeavesTheFileByteIdentical_bugTemplateOverwroteTheFile() {
    runScenario("builder-bugs:template-on-saved-file");
  }

  @Test
  void nodesDroppedKeepTheirPlaceAndADrawnEdgeIsAForwardEdge_bugLoopToLlmBecameALoopEdgeBoundedAtThree() {
    runScenario("builder-bugs:drag-order");
  }

  @Test
  void aLoopEdgeIsMadeOnlyWhenAskedForWithItsBound_bugADrawnEdgeBecameALoopEdge() {
    runScenario("builder-bugs:loop-edge-on-request");
  }

  @Test
  void theLoopNodeDrawsNoPortsThatSendNothing_bugIterationsAndCountPortsSentNothing() {
    runScenario("builder-bugs:loop-ports");
  }

  @Test
  void backWithUnsavedEditsAsksAndNoKeepsThem_bugBackDroppedTheEdits() {
    runScenario("builder-bugs:back-guard");
  }

  @Test
  void theNodeDetailsStayOnScreenAt800Pixels_bugThePanelFellBelowTheWindow() {
    runScenario("builder-bugs:at-800");
  }

  @Test
  void aBackEdgeLabelLiesInsideTheCanvasAfterFit_bugLabelsWereCutAtTheGraphsEdge() {
    runScenario("builder-bugs:edge-labels");
  }

  @Test
  void afterARunFromTheBuilderEachNodeShowsItsResultAndOpensItsExecution() {
    runScenario("builder-bugs:last-run");
  }

  @Test
  void aThousandPassLoopIsAWindowAStripAndAPageOfButtons_bugTheNavigatorDrewEveryPass() {
    runScenario("long-loops:long-loop");
  }

  @Test
  void anInnerPassOfAnEarlierOuterPassIsLoadedWhenShown() {
    runScenario("long-loops:nested-counter");
  }

  @Test
  void markdownJsonTreesAndLlmMessagesRenderAsTextViews() {
    runScenario("views");
  }

  @Test
  void theRunListSearchesAndDeletesAndShowsTheRunPageDurationAndAPlainPrompt() {
    runScenario("run-list");
  }

  @Test
  void everyScenarioFileIsRun() throws IOException {
    try (Stream<Path> files = Files.list(e2e)) {
      Set<String> scripts = files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".mjs") && !NOT_SCENARIOS.contains(n)).collect(Collectors.toCollection(TreeSet::new));
      assertThat(scripts).as("scenario scripts in loopflow-ui/e2e").isEqualTo(new TreeSet<>(SCENARIOS));
    }
  }

  /**
   * Runs one scenario in the runner (started on first use) and checks it passed: the runner printed {@code PASS} and
   * {@code @@done NAME pass}, and the server logged nothing meanwhile. A runner that hangs past the limit or dies is
   * killed and the next scenario starts a new one.
   */
  private void runScenario(String name) {
    assertThat(SCENARIOS).contains(name.split(":")[0] + ".mjs");
    int logBefore = serverLog.size();
    long start = System.nanoTime();
    Runner r = runner();
    r.in.println(name);
    r.in.flush();
    StringBuilder out = new StringBuilder();
    String outcome = null;
    long deadline = System.nanoTime() + SCRIPT_LIMIT.toNanos();
    try {
      while (outcome == null) {
        String line = r.lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (line == null || line == Runner.EOF) {
          stopRunner();
          fail("the scenario runner " + (line == null ? "did not finish " + name + " within "
              + SCRIPT_LIMIT.toSeconds() + " s and was killed" : "ended during " + name)
              + "\n--- its output:\n" + out + serverLogSince(logBefore));
        }
        if (line.startsWith("@@done " + name + " ")) {
          outcome = line.substring(("@@done " + name + " ").length());
        } else {
          out.append(line).append('\n');
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopRunner();
      throw new IllegalStateException(e);
    }
    long ms = Duration.ofNanos(System.nanoTime() - start).toMillis();
    System.out.println("--- " + name + " (" + ms + " ms)\n" + out);
    String context = "\n--- output of " + name + ":\n" + out + serverLogSince(logBefore);
    assertThat(outcome).as("outcome of " + name + context).isEqualTo("pass");
    assertThat(out.toString()).as("the PASS line of " + name).containsPattern("(?m)^PASS ");
    assertThat(serverLog.subList(logBefore, serverLog.size())).as("what the server logged during " + name).isEmpty();
  }

  private String serverLogSince(int from) {
    List<String> lines = serverLog.subList(from, serverLog.size());
    return lines.isEmpty() ? "" : "\n--- server log:\n" + String.join("\n", lines);
  }

  /** {@code node e2e/run.mjs --serve}: one Node.js process and one Chromium for the scenarios of this class. */
  private static final class Runner {
    static final String EOF = new String("(end of output)");
    final Process process;
    final java.io.PrintWriter in;
    final java.util.concurrent.BlockingQueue<String> lines = new java.util.concurrent.LinkedBlockingQueue<>();

    Runner(Process process) {
      this.process = process;
      this.in = new java.io.PrintWriter(process.getOutputStream(), false, StandardCharsets.UTF_8);
      Thread.ofVirtual().start(() -> {
        try (java.io.BufferedReader r = process.inputReader(StandardCharsets.UTF_8)) {
          for (String line; (line = r.readLine()) != null; ) {
            lines.add(line);
          }
        } catch (IOException e) {
          lines.add("(reading the runner's output failed: " + e.getMessage() + ")");
        }
        lines.add(EOF);
      });
    }
  }

  private Runner runner() {
    if (runner != null && runner.process.isAlive()) {
      return runner;
    }
    ProcessBuilder pb = new ProcessBuilder(node.toString(), e2e.resolve("run.mjs").toString(), "--serve")
        .directory(root.resolve("loopflow-ui").toFile()).redirectErrorStream(true);
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
    try {
      runner = new Runner(pb.start());
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + node + " e2e/run.mjs", e);
    }
    return runner;
  }

  private void stopRunner() {
    if (runner == null) {
      return;
    }
    Process p = runner.process;
    runner = null;
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
    try {
      p.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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
