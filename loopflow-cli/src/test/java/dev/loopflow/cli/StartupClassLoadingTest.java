package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Start-up loads only what a command needs: each class loaded costs a command's start-up time (and, with the AOT
 * cache, a class loaded by the build's training run is loaded at every start). These run the CLI in a fresh JVM with
 * class loading logged and check which libraries a command touched, so that an eager reference to one of them (a
 * static field, an import used at start-up) fails here rather than slowing every command down unnoticed.
 */
class StartupClassLoadingTest {
  private static final Pattern LOADED = Pattern.compile("\\[class,load\\] (\\S+) source:");

  /** Libraries a run of Lua nodes never needs: templates and conditions, LLM providers, the server. */
  private static final List<String> NOT_FOR_LUA_RUNS = List.of("com.hubspot.jinjava.", "dev.langchain4j.",
      "io.javalin.", "org.eclipse.jetty.", "jdk.internal.net.http.");

  @TempDir
  Path dir;

  @Test
  void luaRunOnANewOrCurrentStoreLoadsNeitherFlywayNorTemplatesNorLlmClasses() throws Exception {
    Path flow = dir.resolve("three.yaml");
    Files.writeString(flow, """
        name: three
        nodes:
          - {name: a, run: "return { a = 1 }"}
          - {name: b, run: "return { b = state.a + 1 }"}
          - {name: c, run: "return { c = state.b + 1 }"}
        edges:
          - {from: __start__, to: a}
          - {from: a, to: b}
          - {from: b, to: c}
          - {from: c, to: __end__}
        """);
    String store = "sqlite:" + dir.resolve("runs.db");
    List<String> notNeeded = new ArrayList<>(NOT_FOR_LUA_RUNS);
    notNeeded.add("org.flywaydb.");
    // A new store's schema is created without Flyway (the store module's NewSqliteSchema), a current one is only
    // checked: neither starts it.
    List<String> first = loadedClasses("first", "run", flow.toString(), "--store", store, "--quiet");
    assertThat(first).as("the store was created").anyMatch(c -> c.startsWith("org.sqlite."));
    assertNoneFrom(first, notNeeded);

    List<String> second = loadedClasses("second", "run", flow.toString(), "--store", store, "--quiet");
    assertThat(second).as("the run itself").anyMatch(c -> c.startsWith("org.luaj."));
    assertNoneFrom(second, notNeeded);
  }

  @Test
  void versionLoadsNoStoreNoScriptingAndNoWorkflowReader() throws Exception {
    List<String> loaded = loadedClasses("version", "--version");
    assertThat(loaded).contains("dev.loopflow.cli.Main");
    assertNoneFrom(loaded, List.of("org.sqlite.", "com.zaxxer.hikari.", "org.flywaydb.", "org.luaj.",
        "org.yaml.snakeyaml.", "com.hubspot.jinjava.", "dev.langchain4j.", "io.javalin.", "org.eclipse.jetty."));
  }

  @Test
  void aRunLoadsSqlitesLibraryFromTheVerifiedCopyAndExtractsNothing() throws Exception {
    Path flow = dir.resolve("one.yaml");
    Files.writeString(flow, """
        name: one
        nodes:
          - {name: a, run: "return { a = 1 }"}
        edges:
          - {from: __start__, to: a}
          - {from: a, to: __end__}
        """);
    Path cache = dir.resolve("native");
    // The temporary directory does not exist: the driver's own extraction (there) would fail, so these runs work only
    // by loading the copy in the cache.
    List<String> jvm = List.of("-D" + SqliteNativeLibrary.DIR_PROPERTY + "=" + cache,
        "-Djava.io.tmpdir=" + dir.resolve("no-such-dir"));
    String store = "sqlite:" + dir.resolve("runs.db");
    loadedClasses("extract", jvm, "run", flow.toString(), "--store", store, "--quiet");
    List<Path> copies;
    try (var files = Files.list(cache)) {
      copies = files.toList();
    }
    assertThat(copies).hasSize(1);
    Path lib = copies.get(0);
    Object inode = Files.readAttributes(lib, "unix:ino").get("ino");
    java.nio.file.attribute.FileTime written = Files.getLastModifiedTime(lib);

    loadedClasses("reuse", jvm, "run", flow.toString(), "--store", store, "--quiet");
    try (var files = Files.list(cache)) {
      assertThat(files.toList()).containsExactly(lib);
    }
    assertThat(Files.readAttributes(lib, "unix:ino").get("ino")).as("not written again").isEqualTo(inode);
    assertThat(Files.getLastModifiedTime(lib)).isEqualTo(written);
  }

  private static void assertNoneFrom(List<String> loaded, List<String> prefixes) {
    for (String prefix : prefixes) {
      assertThat(loaded).as("classes loaded from %s", prefix).noneMatch(c -> c.startsWith(prefix));
    }
  }

  /** Runs the CLI with {@code args} in a new JVM and returns the names of the classes it loaded. */
  private List<String> loadedClasses(String name, String... args) throws IOException, InterruptedException {
    return loadedClasses(name, List.of(), args);
  }

  private List<String> loadedClasses(String name, List<String> jvmOptions, String... args)
      throws IOException, InterruptedException {
    Path log = dir.resolve(name + "-classes.log");
    List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
        "-XX:TieredStopAtLevel=1", "-Xshare:auto", "--enable-native-access=ALL-UNNAMED",
        "-Xlog:class+load=info:file=" + log));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", TestJvm.classPathOption(), "dev.loopflow.cli.Main"));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
        .redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(dir.resolve(name + ".err").toFile());
    pb.environment().remove("LOOPFLOW_STORE");
    pb.environment().remove("OPENAI_API_KEY");
    pb.environment().put("LOOPFLOW_HOME", dir.resolve("home").toString());
    Process p = pb.start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(name + " finished").isTrue();
    assertThat(p.exitValue()).as(name + ": " + Files.readString(dir.resolve(name + ".err"))).isZero();
    List<String> classes = new ArrayList<>();
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      Matcher m = LOADED.matcher(line);
      if (m.find()) {
        classes.add(m.group(1));
      }
    }
    assertThat(classes).as("class loading was logged").isNotEmpty();
    return classes;
  }
}
