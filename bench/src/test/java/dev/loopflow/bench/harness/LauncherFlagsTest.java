package dev.loopflow.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** loopflow's runner starts with the launcher's JVM options, so the bench measures what a user of the CLI gets. */
class LauncherFlagsTest {
  @Test
  void theRunnerGetsTheLaunchersCollectorCompilerAndHeapOptions_bugArrayOfOptionsReadAsNone() {
    Path launcher = Path.of(System.getProperty("user.dir")).getParent().resolve("loopflow");
    assertThat(Compare.launcherJvmFlags(launcher)).contains("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xms16m")
        .noneMatch(f -> f.contains("Shared") || f.contains("$") || f.startsWith("-Xlog") || f.contains("AOT"));
  }
}
