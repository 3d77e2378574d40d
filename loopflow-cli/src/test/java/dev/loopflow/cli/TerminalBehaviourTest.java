package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The terminal view of progress, and Ctrl-C against a real CLI process. */
class TerminalBehaviourTest {
  @TempDir
  Path dir;

  /** Child JVMs started by a test; a test that fails leaves none (nor their nodes' processes) behind. */
  private final List<Process> children = new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * The command with SIGINT at its default disposition. A process started in the background of a non-interactive
   * shell (a build run with {@code &}, some CI runners) ignores SIGINT, its children inherit that, and a JVM never
   * catches a signal it started ignoring: Ctrl-C could then not be tested at all, and the child would run its node's
   * sleep 600 to the end. {@code env --default-signal} (GNU coreutils) restores the default where it exists.
   */
  private static List<String> withSigintDefault(String... command) {
    List<String> out = new ArrayList<>();
    if (ENV_RESETS_SIGNALS) {
      out.add("env");
      out.add("--default-signal=INT");
    }
    out.addAll(List.of(command));
    return out;
  }

  private static final boolean ENV_RESETS_SIGNALS = envResetsSignals();

  private static boolean envResetsSignals() {
    try {
      Process p = new ProcessBuilder("env", "--default-signal=INT", "true").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (java.io.IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @org.junit.jupiter.api.AfterEach
  void endChildren() {
    for (Process p : children) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  @Test
  void liveViewRedrawsOneRowPerNodeInPlaceWithStatusTokensAndLoopIteration() {
    Workflow wf = Loopflow.create().parse("""
        nodes:
          - id: fix
            loop_group:
              max_iterations: 3
              until: DONE
              nodes:
                - id: work
                  bash: echo DONE
          - id: after
            bash: echo ok
        """, "live.yaml");
    StringWriter out = new StringWriter();
    Progress.Live live = new Progress.Live(new PrintWriter(out), wf);
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    NodePosition fix = NodePosition.top("fix");
    NodePosition work1 = new NodePosition(List.of(new NodePosition.LoopFrame("fix", 1)), "work");
    NodePosition work2 = new NodePosition(List.of(new NodePosition.LoopFrame("fix", 2)), "work");
    live.onEvent(new Event.NodeStarted("r", 1, t, fix, "loop_group", 1));
    live.onEvent(new Event.LoopIteration("r", 2, t, fix, "loop_group", 2, 1, 3, 3, "", null));
    live.onEvent(new Event.NodeStarted("r", 3, t, work1, "shell", 1));
    live.onEvent(new Event.NodeCompleted("r", 4, t.plusMillis(5), work2, "shell", 5, "DONE", 10, 20, 0.0012, 4));
    String screen = out.toString();
    // Every redraw after the first moves the cursor back over the previous frame (header, fix, fix.work, after,
    // footer) instead of scrolling.
    assertThat(screen).contains("\033[5F").contains("\033[2K");
    String lastFrame = screen.substring(screen.lastIndexOf("NODE"));
    assertThat(lastFrame).contains("iteration 2/3");
    // Passes of a body node share one row (fix.work), which shows the latest pass.
    assertThat(lastFrame.lines().filter(l -> l.contains("fix.work")).count()).isEqualTo(1);
    assertThat(lastFrame).contains("10+20").contains("$0.0012");
    assertThat(lastFrame.lines().filter(l -> l.contains("after")).findFirst().orElseThrow()).contains("pending");
  }

  @Test
  @DisabledOnOs(OS.WINDOWS)
  // A hang guard only, on its own thread: reading a child's output is not interruptible, so a guard on the test's
  // thread would wait for the child's sleep 600.
  @org.junit.jupiter.api.Timeout(value = 3, unit = TimeUnit.MINUTES,
      threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void ctrlCCancelsTheRunNamesTheRunningNodesAndExitsOne() throws Exception {
    Path wf = dir.resolve("slow.yaml");
    Files.writeString(wf, """
        nodes:
          - id: first
            bash: echo started
          - id: slow
            bash: sleep 600
        """);
    String java = ProcessHandle.current().info().command().orElse("java");
    ProcessBuilder pb = new ProcessBuilder(withSigintDefault(java, "-cp", TestJvm.classPathOption(),
        "dev.loopflow.cli.Main", "run", wf.toString()));
    pb.environment().put("LOOPFLOW_PLAIN_PROGRESS", "1");
    // The child JVM does not get the build's loopflow.home property: keep its journal out of the real home.
    pb.environment().put("LOOPFLOW_HOME", dir.resolve("home").toString());
    Process p = pb.start();
    children.add(p);
    List<String> err = new ArrayList<>();
    BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
    String line;
    // Wait (by reading progress, not by sleeping) until the slow node is running, then press Ctrl-C.
    while ((line = r.readLine()) != null) {
      err.add(line);
      if (line.matches("\\[.*] slow\\s+started.*")) {
        break;
      }
    }
    assertThat(line).as("progress: %s", err).isNotNull();
    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor();
    while ((line = r.readLine()) != null) {
      err.add(line);
    }
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("ended long before its node's sleep 600 would have").isTrue();
    assertThat(p.exitValue()).isEqualTo(1);
    String all = String.join("\n", err);
    assertThat(all).contains("interrupted; cancelling run").contains("running: slow");
    assertThat(all).contains("run cancelled");
  }

  @Test
  // A hang guard only, on its own thread: reading a child's output is not interruptible, so a guard on the test's
  // thread would wait for the child's sleep 600.
  @org.junit.jupiter.api.Timeout(value = 3, unit = TimeUnit.MINUTES,
      threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void ctrlCWhileTheRunIsBeingStartedCancelsItOnceItExists_bugTheJvmDiedWith130() throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    ProcessBuilder pb = new ProcessBuilder(withSigintDefault(java, "-cp", TestJvm.classPathOption(),
        "dev.loopflow.cli.EarlyInterruptMain"));
    pb.environment().put("LOOPFLOW_HOME", dir.resolve("home-early").toString());
    pb.redirectErrorStream(true);
    Process p = pb.start();
    children.add(p);
    // The output ends when the process does: within the test's hang guard only if the node's sleep 600 was stopped.
    String all = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as(all).isTrue();
    assertThat(p.exitValue()).as(all).isEqualTo(1);
    assertThat(all).contains("interrupted; cancelling run").contains("cancelled");
  }
}
