package dev.loopflow.core.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An escape corpus: what a contained shell node tries, and what it must not reach. Each attack also runs once
 * where it is allowed (a control), so a test that could not fail would show.
 */
class ProcessContainmentTest {
  private static final Loopflow ENGINE = Loopflow.create();

  @TempDir Path dir;
  Path work;
  Path home;
  Path store;

  @BeforeAll
  static void bubblewrapWorksHere() {
    ProcessSandbox.Availability a = ProcessSandbox.availability();
    assertThat(a.available()).as("these tests need bubblewrap (apt-get install bubblewrap): %s", a.reason())
        .isTrue();
  }

  @BeforeEach
  void layout() throws IOException {
    work = Files.createDirectories(dir.resolve("work"));
    home = Files.createDirectories(dir.resolve("home"));
    Files.createDirectories(home.resolve(".ssh"));
    Files.writeString(home.resolve(".ssh/id_ed25519"), "PRIVATE-KEY-MATERIAL");
    Files.createDirectories(home.resolve(".aws"));
    Files.writeString(home.resolve(".aws/credentials"), "aws_secret_access_key=AWSSECRET");
    Files.writeString(home.resolve(".netrc"), "machine x password NETRCSECRET");
    store = Files.createDirectories(dir.resolve("lfhome"));
    Files.writeString(store.resolve("loopflow.db"), "STORE-CONTENT");
  }

  private RunResult run(String level, String script) {
    return run(level, script, "auto");
  }

  private RunResult run(String level, String script, String mode) {
    Workflow wf = ENGINE.parse("""
        nodes:
          - id: sh
            bash: |
        %s
            sandbox: %s
            allow_failure: true
        """.formatted(script.indent(6).stripTrailing(), level), "sandbox.yaml");
    Map<String, String> env = new LinkedHashMap<>(System.getenv());
    env.put("HOME", home.toString());
    return ENGINE.run(wf, RunOptions.builder().workingDirectory(work).environment(env)
        .option(RunOptions.SANDBOX_MODE, mode)
        .option(RunOptions.SANDBOX_HIDDEN_PATHS, List.of(store.toString())).build());
  }

  private static Map<String, Object> node(RunResult r) {
    return r.nodes().get("sh");
  }

  @Test
  void aWorkspaceNodeRunsInItsWorkingDirectoryAndSaysHowItRan() {
    RunResult r = run("workspace", "pwd; echo hi > made.txt; cat made.txt");

    assertThat(node(r)).containsEntry("exitCode", 0).containsEntry("sandbox", "workspace");
    assertThat((String) node(r).get("stdout")).isEqualTo(work + "\nhi\n");
    assertThat(work.resolve("made.txt")).hasContent("hi");
  }

  @Test
  void aStrictNodeReachesNothingOnLoopback() throws IOException {
    try (ServerSocket server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      String probe = "exec 3<>/dev/tcp/127.0.0.1/" + server.getLocalPort() + " && echo CONNECTED";
      assertThat((String) node(run("workspace", probe)).get("stdout")).contains("CONNECTED"); // the control

      for (String level : List.of("strict", "{network: false}")) {
        Map<String, Object> n = node(run(level, probe + "\ncurl -s --max-time 3 http://127.0.0.1:"
            + server.getLocalPort() + "/ && echo CURLED\nip -o addr 2>/dev/null | grep -v ' lo ' | wc -l"));
        assertThat((String) n.get("stdout")).as(level).doesNotContain("CONNECTED", "CURLED");
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"/etc/loopflow-escape", "/usr/loopflow-escape", "/var/loopflow-escape",
      "USERHOME/loopflow-escape", "HOME/.ssh/authorized_keys", "LFHOME/loopflow.db", "/opt/loopflow-escape"})
  void writesOutsideTheAllowedPathsFail(String target) {
    String path = target.replace("LFHOME", store.toString()).replace("USERHOME", System.getProperty("user.home"))
        .replace("HOME", home.toString());
    Map<String, Object> n = node(run("workspace", "echo pwned >> '" + path + "' && echo WROTE"));

    assertThat((String) n.get("stdout")).doesNotContain("WROTE");
    assertThat(Path.of(path)).satisfiesAnyOf(p -> assertThat(p).doesNotExist(),
        p -> assertThat(Files.readString(p)).doesNotContain("pwned"));
  }

  @Test
  void slashTmpAndExtraWritePathsAreWritable() throws IOException {
    Path extra = Files.createDirectories(dir.resolve("extra"));
    String marker = "/tmp/loopflow-sandbox-" + UUID.randomUUID();
    RunResult r = run("{write: ['" + extra + "']}", "echo a > " + marker + " && echo b > '" + extra
        + "/f' && echo OK");
    try {
      assertThat((String) node(r).get("stdout")).contains("OK");
      assertThat(node(r)).containsEntry("sandbox", "custom");
      assertThat(extra.resolve("f")).hasContent("b");
    } finally {
      Files.deleteIfExists(Path.of(marker));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"cat HOME/.ssh/id_ed25519", "cat HOME/.aws/credentials", "cat HOME/.netrc",
      "cat LFHOME/loopflow.db", "ls -la HOME/.ssh; cat HOME/.ssh/*", "tar cf - HOME 2>/dev/null | strings",
      "grep -r SECRET HOME LFHOME 2>/dev/null", "rm -rf k; cp -r HOME/.ssh ./k 2>/dev/null; cat ./k/* 2>/dev/null",
      "cat /etc/shadow", "find TESTDIR -name id_ed25519 2>/dev/null -exec cat {} \\;"})
  void credentialsAndTheStoreReadAsEmpty(String attack) {
    String script = attack.replace("LFHOME", store.toString()).replace("TESTDIR", dir.toString())
        .replace("HOME", home.toString());
    String out = node(run("workspace", script)).get("stdout") + "" + node(run("workspace", script)).get("stderr");

    assertThat(out).doesNotContain("PRIVATE-KEY-MATERIAL", "AWSSECRET", "NETRCSECRET", "STORE-CONTENT", "root:$");
    // the control: without a sandbox the same command reads them
    if (!attack.contains("shadow") && !attack.contains("find")) {
      String off = node(run("off", script)) + "";
      assertThat(off).containsAnyOf("PRIVATE-KEY-MATERIAL", "AWSSECRET", "NETRCSECRET", "STORE-CONTENT");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"ln -s HOME/.ssh keys; cat keys/id_ed25519",
      "ln -s LFHOME/loopflow.db db; cat db", "ln -s / root; cat root/HOMEREL/.ssh/id_ed25519",
      "mkdir -p a; ln -s ../../home a/up; cat a/up/.ssh/id_ed25519",
      "ln -s /etc/passwd pw; echo pwned >> pw && echo WROTE", "ln -s LFHOME st; echo x > st/new && echo WROTE"})
  void symlinksInTheWorkingDirectoryLeadNowhere(String attack) throws IOException {
    String passwd = Files.readString(Path.of("/etc/passwd"));
    String script = attack.replace("LFHOME", store.toString()).replace("HOMEREL", home.toString().substring(1))
        .replace("HOME", home.toString());
    Map<String, Object> n = node(run("workspace", script));

    assertThat(n.get("stdout") + "" + n.get("stderr")).doesNotContain("PRIVATE-KEY-MATERIAL", "STORE-CONTENT",
        "WROTE");
    assertThat(Path.of("/etc/passwd")).hasContent(passwd);
    assertThat(store.resolve("new")).doesNotExist();
  }

  @Test
  void otherProcessesAreInvisible() {
    long engine = ProcessHandle.current().pid();
    Map<String, Object> n = node(run("workspace", """
        kill -0 %1$d 2>/dev/null && echo SEES_ENGINE
        cat /proc/%1$d/environ 2>/dev/null | tr '\\0' '\\n' | head -3
        python3 -c 'import ctypes,sys; l=ctypes.CDLL(None); print("TRACED" if l.ptrace(16, %1$d, 0, 0) == 0 else "no")'
        ls /proc | grep -cE '^[0-9]+$'
        """.formatted(engine)));

    String out = (String) n.get("stdout");
    assertThat(out).doesNotContain("SEES_ENGINE", "PATH=", "TRACED").contains("no\n");
    assertThat(Integer.parseInt(out.strip().lines().reduce((a, b) -> b).orElseThrow())).isLessThan(10);
    assertThat((String) node(run("off", "kill -0 " + engine + " && echo SEES_ENGINE")).get("stdout"))
        .contains("SEES_ENGINE"); // the control
  }

  @Test
  void noCapabilityLetsANodeRemountOrTrace() {
    Map<String, Object> n = node(run("workspace", """
        grep CapEff /proc/self/status
        mount -o remount,rw / 2>/dev/null && echo REMOUNTED
        touch /etc/loopflow-after-remount 2>/dev/null && echo WROTE
        """));

    assertThat((String) n.get("stdout")).contains("CapEff:\t0000000000000000").doesNotContain("REMOUNTED", "WROTE");
  }

  @Test
  void nothingANodeStartedOutlivesIt() throws Exception {
    String tag = "31" + (System.nanoTime() % 100000);
    RunResult r = run("workspace", "(sleep " + tag + " &) ; nohup sleep " + tag + " >/dev/null 2>&1 &\n"
        + "setsid sleep " + tag + " >/dev/null 2>&1 < /dev/null & disown; echo started");

    assertThat((String) node(r).get("stdout")).contains("started");
    assertThat(waitGone("sleep " + tag)).isEmpty();
    // the control: uncontained, the same command leaves them behind (and they are cleaned up here)
    run("off", "setsid sleep " + tag + " >/dev/null 2>&1 < /dev/null & disown; echo started");
    List<ProcessHandle> left = survivors("sleep " + tag);
    left.forEach(ProcessHandle::destroyForcibly);
    assertThat(left).isNotEmpty();
  }

  @Test
  void nothingOutlivesATimeout() throws Exception {
    String tag = "32" + (System.nanoTime() % 100000);
    Workflow wf = ENGINE.parse("""
        nodes:
          - id: sh
            bash: "setsid sleep %s >/dev/null 2>&1 < /dev/null & sleep %s"
            timeout: 1s
        """.formatted(tag, tag), "timeout.yaml");
    RunResult r = ENGINE.run(wf, RunOptions.builder().workingDirectory(work).build());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(waitGone("sleep " + tag)).isEmpty();
  }

  @Test
  void nothingOutlivesACancel() throws Exception {
    String tag = "33" + (System.nanoTime() % 100000);
    Workflow wf = ENGINE.parse("""
        nodes:
          - id: sh
            bash: "setsid sleep %s >/dev/null 2>&1 < /dev/null & echo up > up.txt; sleep %s"
        """.formatted(tag, tag), "cancel.yaml");
    dev.loopflow.core.run.RunHandle h = ENGINE.start(wf, RunOptions.builder().workingDirectory(work).build());
    for (int i = 0; i < 300 && !Files.exists(work.resolve("up.txt")); i++) {
      Thread.sleep(50);
    }
    h.cancel("the test is over");

    assertThat(h.await().status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(waitGone("sleep " + tag)).isEmpty();
  }

  @Test
  void requiredRefusesANodeThatAsksForNoSandbox() {
    RunResult r = run("off", "echo ran > ran.txt");

    assertThat(node(r)).containsEntry("sandbox", "off");
    RunResult refused = run("off", "echo ran > refused.txt", "required");
    assertThat(refused.nodes().get("sh").get("error")).asString().contains("sandbox_required");
    assertThat(work.resolve("refused.txt")).doesNotExist();
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "/usr/local/bin", "/etc", "~", "../../..", "link-to-root"})
  void requiredRefusesWritablePathsOutsideTheWorkspace_bugWriteSlashUnderRequired(String path) throws IOException {
    Files.createSymbolicLink(work.resolve("link-to-root"), Path.of("/"));
    RunResult refused = run("{write: ['" + path + "']}", "echo ran > refused.txt", "required");

    assertThat(refused.nodes().get("sh").get("error")).asString().contains("sandbox_required").contains(path);
    assertThat(work.resolve("refused.txt")).doesNotExist();
  }

  @Test
  void requiredAllowsWritablePathsInsideTheWorkspace() throws IOException {
    Files.createDirectories(work.resolve("build"));
    RunResult r = run("{write: [build, /tmp]}", "echo ran > build/f", "required");

    assertThat(node(r)).containsEntry("exitCode", 0).containsEntry("sandbox", "custom");
    assertThat(work.resolve("build/f")).hasContent("ran");
  }

  @Test
  void modeOffContainsNothingAndSaysSo() {
    RunResult r = run("strict", "cat '" + home + "/.netrc'", "off");

    assertThat(node(r)).containsEntry("sandbox", "disabled");
    assertThat((String) node(r).get("stdout")).contains("NETRCSECRET");
  }

  @Test
  void withoutBubblewrapAutoRunsUncontainedAndRequiredRefuses() {
    String before = System.getProperty("loopflow.bwrap");
    System.setProperty("loopflow.bwrap", dir.resolve("no-such-bwrap").toString());
    try {
      RunResult auto = run("workspace", "echo ran");
      assertThat(node(auto)).containsEntry("sandbox", "unavailable").containsEntry("exitCode", 0);

      RunResult required = run("workspace", "echo ran > refused.txt", "required");
      assertThat(required.nodes().get("sh").get("error")).asString().contains("sandbox_required")
          .contains("bubblewrap");
      assertThat(work.resolve("refused.txt")).doesNotExist();
    } finally {
      if (before == null) {
        System.clearProperty("loopflow.bwrap");
      } else {
        System.setProperty("loopflow.bwrap", before);
      }
    }
  }

  @Test
  void hugeOutputKeepsItsHeadAndTail_bug400MbOfStdoutHeldInMemory() {
    Workflow wf = ENGINE.parse("""
        nodes:
          - id: sh
            bash: "echo FIRST; head -c 50000000 /dev/zero | tr '\\\\0' x; echo; echo LAST"
            max_output_bytes: 65536
        """, "big.yaml");
    RunResult r = ENGINE.run(wf, RunOptions.builder().workingDirectory(work).build());

    Map<String, Object> n = r.nodes().get("sh");
    String out = (String) n.get("stdout");
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(out.length()).isLessThan(70_000);
    assertThat(out).startsWith("FIRST\n").endsWith("LAST\n").contains("bytes left out");
    assertThat(((Number) n.get("stdoutBytes")).longValue()).isEqualTo(6 + 50_000_000 + 1 + 5);
  }

  private static List<ProcessHandle> survivors(String commandLine) {
    return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(commandLine))
        .toList();
  }

  /** Processes are reaped asynchronously after a kill: looks again for a while before reporting survivors. */
  private static List<ProcessHandle> waitGone(String commandLine) throws InterruptedException {
    for (int i = 0; i < 100; i++) {
      if (survivors(commandLine).isEmpty()) {
        return List.of();
      }
      Thread.sleep(100);
    }
    List<ProcessHandle> left = survivors(commandLine);
    left.forEach(ProcessHandle::destroyForcibly);
    return left;
  }
}
