package dev.loopflow.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** loopflow's runner starts with the launcher's JVM options, so the bench measures what a user of the CLI gets. */
class LauncherFlagsTest {
  @Test
  void theRunnerGetsTheLaunchersCollectorCompilerAndHeapOptions_bugArrayOfOptionsReadAsNone() {
    Path launcher = Path.of(System.getProperty("user.dir")).getParent().resolve("loopflow");
    assertThat(Compare.launcherJvmFlags(launcher)).contains("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xms16m")
        .noneMatch(f -> f.contains("Shared") || f.contains("$") || f.startsWith("-Xlog") || f.contains("AOT"));
  }

  @Test
  void theLangGraph4jRunnerGetsTheSameJvmOptionsAsLoopflowsRunner() {
    Path root = Path.of(System.getProperty("user.dir")).getParent();
    List<String> flags = Compare.launcherJvmFlags(root.resolve("loopflow"));
    List<String> cmd = Compare.langGraph4jCommand("java", root);
    assertThat(cmd.subList(1, 1 + flags.size())).isEqualTo(flags);
    assertThat(cmd.get(0)).isEqualTo("java");
    assertThat(cmd.subList(1 + flags.size(), cmd.size()).get(0)).isEqualTo("-jar");
  }
}
