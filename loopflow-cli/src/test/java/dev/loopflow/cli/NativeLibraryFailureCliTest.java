package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When SQLite's native library cannot be loaded (no directory it could be extracted to), a command says so in one
 * line and exits 1. The driver's UnsatisfiedLinkError is an Error, which used to end the process with a stack trace.
 */
class NativeLibraryFailureCliTest {
  @TempDir
  Path dir;

  @Test
  void aRunWhoseStoreCannotLoadSqlitesNativeLibraryFailsWithOneLine_bugUnsatisfiedLinkErrorStackTrace()
      throws Exception {
    Path wf = dir.resolve("w.yaml");
    Files.writeString(wf, "nodes:\n  - id: a\n    bash: echo hi\n");
    String java = ProcessHandle.current().info().command().orElse("java");
    ProcessBuilder pb = new ProcessBuilder(java, "-Djava.io.tmpdir=" + dir.resolve("missing/tmp"),
        "-D" + SqliteNativeLibrary.DIR_PROPERTY + "=" + dir.resolve("missing/native"),
        "-cp", TestJvm.classPathOption(), "dev.loopflow.cli.Main", "run", wf.toString());
    pb.environment().put("LOOPFLOW_HOME", dir.resolve("home").toString());
    pb.environment().remove("LOOPFLOW_STORE");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    // The JVM itself warns about the missing temporary directory (and, started without the jar's manifest, about
    // native access, ending with an empty line); everything else is the CLI's one line.
    List<String> ours = err.lines().filter(l -> !l.startsWith("WARNING:") && !l.isBlank()).toList();
    assertThat(ours).as(err).hasSize(1);
    assertThat(ours.get(0)).startsWith("loopflow: cannot open the run store")
        .contains("SQLite's native library could not be loaded");
    assertThat(err).doesNotContain("\tat ").doesNotContain("Exception in thread");
    assertThat(out).isEmpty();
    assertThat(p.exitValue()).isEqualTo(Main.FAILED);
  }
}
