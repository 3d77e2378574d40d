package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code loopflow} launcher and its start-up archives (the AOT cache on JDK 25 or newer, class data sharing
 * otherwise). The launcher runs here against a small stand-in jar in a copy of the repository's layout: its main
 * class prints its arguments and which archive option the JVM was given, so each case sees what the launcher chose,
 * and that a cache that cannot be used changes nothing a user sees (exit status, stdout, stderr).
 */
@DisabledOnOs(OS.WINDOWS)
class LauncherArchiveTest {
  private static final String PROBE = """
      public class Probe {
        public static void main(String[] args) {
          if (args.length > 0 && args[0].equals("fail")) {
            System.exit(1);
          }
          String archive = "none";
          for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("-XX:AOTCache=") || a.startsWith("-XX:SharedArchiveFile=")) {
              archive = a.substring(4, a.indexOf('='));
            }
          }
          System.out.println("probe " + String.join(" ", args) + " archive=" + archive);
        }
      }
      """;

  @TempDir
  Path root;

  Path target;

  @BeforeEach
  void layout() throws IOException {
    Path launcher = repositoryRoot().resolve("loopflow");
    Files.copy(launcher, root.resolve("loopflow"));
    root.resolve("loopflow").toFile().setExecutable(true);
    Path aot = root.resolve("loopflow-cli/src/main/aot");
    Files.createDirectories(aot);
    Files.copy(repositoryRoot().resolve("loopflow-cli/src/main/aot/train.sh"), aot.resolve("train.sh"));
    Files.writeString(aot.resolve("training.yaml"), "name: stand-in\n");
    // Sources older than the jar: the launcher must not think the jar stale and start a build.
    for (Path p : List.of(aot.resolve("train.sh"), aot.resolve("training.yaml"), aot)) {
      Files.setLastModifiedTime(p, FileTime.from(Instant.parse("2001-01-01T00:00:00Z")));
    }
    target = root.resolve("loopflow-cli/target");
    Files.createDirectories(target);
    writeJar("v1");
  }

  /** A stand-in Maven first on the PATH: a build the launcher starts is seen, and fails at once. */
  private Map<String, String> fakeMaven() throws IOException {
    Path bin = Files.createDirectories(root.resolve("fake-bin"));
    Path mvn = bin.resolve("mvn");
    Files.writeString(mvn, "#!/bin/sh\necho fake-mvn >&2\nexit 1\n");
    mvn.toFile().setExecutable(true);
    return Map.of("PATH", bin + ":" + System.getenv("PATH"));
  }

  private void newerThanTheJar(String path) throws IOException {
    Path p = root.resolve(path);
    Files.createDirectories(p.getParent());
    Files.writeString(p, "changed");
    Files.setLastModifiedTime(p, FileTime.from(Instant.parse("2040-01-01T00:00:00Z")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"loopflow-core/src/main/java/dev/X.java", "pom.xml", "loopflow-core/pom.xml",
      "loopflow-ui/src/App.tsx", "loopflow-ui/index.html", "loopflow-ui/package-lock.json",
      "loopflow-cli/src/main/aot/training.yaml"})
  void aSourceNewerThanTheJarStartsABuild(String path) throws Exception {
    newerThanTheJar(path);
    Result run = launcher(fakeMaven(), "hello");
    assertThat(run.err).contains("building the CLI").contains("fake-mvn");
    assertThat(run.exit).isEqualTo(2);
  }

  /** The launcher does not walk these (tens of thousands of files); nothing in them is a source of the jar. */
  @ParameterizedTest
  @ValueSource(strings = {".git/objects/ab/cdef", "loopflow-core/target/classes/dev/X.class",
      "loopflow-core/target/generated-sources/src/main/X.java", "target/x", "loopflow-ui/node_modules/p/src/main/x.js",
      "loopflow-ui/src/App.test.ts", "bench/src/main/java/X.java", "loopflow-core/src/test/java/XTest.java"})
  void filesThatAreNotSourcesOfTheJarNeverStartABuild(String path) throws Exception {
    newerThanTheJar(path);
    Result run = launcher(fakeMaven(), "hello");
    assertThat(run.err).doesNotContain("building").doesNotContain("fake-mvn");
    assertThat(run.out).startsWith("probe hello");
  }

  @Test
  void trainingWritesOneCacheForTheJarAndLaterRunsMapIt() throws Exception {
    assumeAotJdk();
    Result training = launcher(Map.of("LOOPFLOW_AOT_TRAINING", "1"), "hello");
    assertThat(training.exit).as(training.err).isZero();
    assertThat(archives(".aot")).hasSize(1);
    assertThat(leftovers()).isEmpty();

    Result run = launcher(Map.of(), "hello", "world");
    assertThat(run.exit).isZero();
    assertThat(run.out).isEqualTo("probe hello world archive=AOTCache\n");
    assertThat(run.err).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"garbage", "truncated", "empty", "another-jar"})
  void aCacheTheJvmCannotUseIsIgnoredWithoutAWord(String damage) throws Exception {
    assumeAotJdk();
    // A cache trained once for an earlier stand-in jar: written under this jar's name it is "made for another jar"
    // (as a jar replaced by hand with the same time and size would look), which the JVM's own check refuses.
    byte[] good = trainedElsewhere();
    byte[] bytes = switch (damage) {
      case "garbage" -> {
        byte[] noise = new byte[good.length];
        new java.util.Random(7).nextBytes(noise);
        yield noise;
      }
      case "truncated" -> Arrays.copyOf(good, good.length / 3);
      case "empty" -> new byte[0];
      default -> good;
    };
    Files.write(target.resolve("loopflow-" + stamp() + ".aot"), bytes);
    Result run = launcher(Map.of(), "a", "b");
    assertThat(run.exit).as(run.err).isZero();
    assertThat(run.out).isEqualTo("probe a b archive=AOTCache\n");
    assertThat(run.err).isEmpty();
  }

  @Test
  void aNewJarNeverGetsTheOldJarsCacheAndFallsBackToClassDataSharing() throws Exception {
    assumeAotJdk();
    assertThat(launcher(Map.of("LOOPFLOW_AOT_TRAINING", "1"), "x").exit).isZero();
    writeJar("v2-rebuilt");
    Files.setLastModifiedTime(jar(), FileTime.from(Instant.parse("2031-01-01T00:00:00Z")));
    Result run = launcher(Map.of(), "run", "again");
    assertThat(run.exit).isZero();
    assertThat(run.out).isEqualTo("probe run again archive=SharedArchiveFile\n");
    assertThat(run.err).isEmpty();
    assertThat(archives(".aot")).as("the stale cache is removed").isEmpty();
  }

  @Test
  void onlyACommandThatRunsAWorkflowWritesTheClassDataArchive() throws Exception {
    for (String[] other : List.of(new String[] {"--version"}, new String[] {"validate", "run"},
        new String[] {"--debug", "show", "x"}, new String[0])) {
      Result r = launcher(Map.of(), other);
      assertThat(r.exit).as(r.err).isZero();
      assertThat(r.out).endsWith("archive=none\n");
      assertThat(archives(".jsa")).as(String.join(" ", other)).isEmpty();
    }
    Result run = launcher(Map.of(), "--debug", "run", "flow.yaml");
    assertThat(run.out).isEqualTo("probe --debug run flow.yaml archive=SharedArchiveFile\n");
    assertThat(archives(".jsa")).hasSize(1);
    // Once written, every command maps it.
    Result version = launcher(Map.of(), "--version");
    assertThat(version.out).isEqualTo("probe --version archive=SharedArchiveFile\n");
    assertThat(version.err).isEmpty();
  }

  @Test
  void aFailedTrainingRunLeavesNoCacheAndNoTemporaryFiles() throws Exception {
    assumeAotJdk();
    Result training = launcher(Map.of("LOOPFLOW_AOT_TRAINING", "1"), "fail");
    assertThat(training.exit).isNotZero();
    assertThat(archives(".aot")).isEmpty();
    assertThat(leftovers()).isEmpty();
    Result run = launcher(Map.of(), "run", "after");
    assertThat(run.out).isEqualTo("probe run after archive=SharedArchiveFile\n");
    assertThat(run.err).isEmpty();
  }

  @Test
  void theBuildsTrainingStepNeverFailsTheBuildAndWritesOnlyUnderTarget() throws Exception {
    // The stand-in jar's training run is "run <training.yaml>", which the probe accepts; then one that fails.
    Result ok = script(Map.of());
    assertThat(ok.exit).as(ok.out + ok.err).isZero();
    if (javaMajor() >= 25) {
      assertThat(archives(".aot")).hasSize(1);
    } else {
      assertThat(ok.out).contains("has no AOT cache");
    }
    assertThat(Files.exists(target.resolve("aot-training-home"))).isFalse();

    Files.writeString(root.resolve("loopflow"), "#!/usr/bin/env bash\nexit 7\n");
    Result failed = script(Map.of());
    assertThat(failed.exit).isZero();
    assertThat(failed.out).contains("ended with exit 7").contains("class data sharing instead");
    try (Stream<Path> files = Files.list(root)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("loopflow", "loopflow-cli");
    }
  }

  @Test
  void aTrainingRunStoppedByItsTimeBoundIsNoFailure_bugItPrintedTrainingRunFailedExit124() throws Exception {
    // What `timeout` returns when it stops the training run (124, or 137 when it had to kill it); the run had left a
    // half-written temporary cache behind.
    Files.writeString(root.resolve("loopflow"), "#!/usr/bin/env bash\nexit 124\n");
    Files.writeString(target.resolve("aot-training-4242.aot"), "half");
    Files.writeString(target.resolve("aot-training-4242.aot.config"), "half");

    Result stopped = script(Map.of());

    assertThat(stopped.exit).isZero();
    assertThat(stopped.out + stopped.err).doesNotContainIgnoringCase("fail").doesNotContain("exit 124")
        .contains("no AOT start-up cache this time").contains("class data sharing instead");
    assertThat(leftovers()).as("what the stopped run left behind").isEmpty();
    assertThat(archives(".aot")).isEmpty();

    Files.writeString(root.resolve("loopflow"), "#!/usr/bin/env bash\nexit 137\n");
    assertThat(script(Map.of()).out).doesNotContainIgnoringCase("fail").contains("no AOT start-up cache this time");
  }

  private static byte[] trained;

  /** A valid AOT cache of the stand-in jar of another test layout (trained once, about a second of CPU). */
  private static synchronized byte[] trainedElsewhere() throws Exception {
    if (trained == null) {
      Path elsewhere = Files.createTempDirectory("launcher-training");
      try {
        LauncherArchiveTest other = new LauncherArchiveTest();
        other.root = elsewhere;
        other.layout();
        assertThat(other.launcher(Map.of("LOOPFLOW_AOT_TRAINING", "1"), "x").exit).isZero();
        trained = Files.readAllBytes(other.archives(".aot").get(0));
      } finally {
        deleteTree(elsewhere);
      }
    }
    return trained;
  }

  private static void assumeAotJdk() {
    assumeTrue(javaMajor() >= 25, "the AOT cache needs JDK 25 or newer");
  }

  private static int javaMajor() {
    return Runtime.version().feature();
  }

  private static Path repositoryRoot() {
    Path here = Path.of("").toAbsolutePath();
    return Files.exists(here.resolve("loopflow")) ? here : here.getParent();
  }

  private Path jar() {
    return target.resolve("loopflow.jar");
  }

  /** The stand-in jar: Probe, with {@code marker} as a resource so that each version differs in size. */
  private void writeJar(String marker) throws IOException {
    Path src = root.resolve("probe-src");
    Files.createDirectories(src);
    Files.writeString(src.resolve("Probe.java"), PROBE);
    int status = ToolProvider.getSystemJavaCompiler().run(null, null, null, "--release", "21", "-d",
        src.toString(), src.resolve("Probe.java").toString());
    assertThat(status).isZero();
    Manifest mf = new Manifest();
    mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    mf.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "Probe");
    try (OutputStream o = Files.newOutputStream(jar()); JarOutputStream j = new JarOutputStream(o, mf)) {
      j.putNextEntry(new JarEntry("Probe.class"));
      j.write(Files.readAllBytes(src.resolve("Probe.class")));
      j.putNextEntry(new JarEntry("marker.txt"));
      j.write(marker.getBytes(StandardCharsets.UTF_8));
    }
    deleteTree(src);
  }

  /** The launcher's name for archives of the current jar and JDK: time and size of the jar and the JVM library. */
  private String stamp() throws IOException {
    Path jvm;
    try (Stream<Path> libs = Files.list(Path.of(System.getProperty("java.home"), "lib", "server"))) {
      jvm = libs.filter(p -> p.getFileName().toString().startsWith("libjvm.")).sorted().findFirst().orElseThrow();
    }
    return fileStamp(jar()) + "-" + fileStamp(jvm);
  }

  private static String fileStamp(Path p) throws IOException {
    return Files.getLastModifiedTime(p).to(TimeUnit.SECONDS) + "-" + Files.size(p);
  }

  private List<Path> archives(String suffix) throws IOException {
    try (Stream<Path> files = Files.list(target)) {
      return files.filter(p -> p.getFileName().toString().startsWith("loopflow-")
          && p.getFileName().toString().endsWith(suffix)).toList();
    }
  }

  private List<Path> leftovers() throws IOException {
    try (Stream<Path> files = Files.list(target)) {
      return files.filter(p -> p.getFileName().toString().startsWith("aot-training-")).toList();
    }
  }

  private Result launcher(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", root.resolve("loopflow").toString()));
    command.addAll(List.of(args));
    return run(command, env);
  }

  private Result script(Map<String, String> env) throws Exception {
    return run(List.of("bash", root.resolve("loopflow-cli/src/main/aot/train.sh").toString()), env);
  }

  private Result run(List<String> command, Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(root.toFile());
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().remove("LOOPFLOW_AOT_TRAINING");
    pb.environment().putAll(env);
    Path out = Files.createTempFile(root, "out", ".txt");
    Path err = Files.createTempFile(root, "err", ".txt");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    Result r = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    Files.delete(out);
    Files.delete(err);
    return r;
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private record Result(int exit, String out, String err) {}
}
