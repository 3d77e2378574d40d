package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.graph.WorkflowGraph;
import dev.loopflow.core.model.Workflow;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web builder draws a workflow from its own reading of the file (loopflow-ui/src/builder/doc/project.ts), so that
 * a half-built workflow still draws. That reading restates the loader's dependency and loop-body rules; this test
 * pins it to the server's graph: for every example, fixture workflow and bundled template it writes the file and
 * {@link WorkflowGraph}'s JSON, and runs the UI's pin test (projection.pin.test.ts) over them, which fails naming
 * the file and the difference. The same run has the UI's document model edit every file (set a field, add a node,
 * connect it) and this test loads each edited file with the real loader: an edit made the builder's way loads.
 *
 * <p>Needs Node.js and the UI's installed packages, as the browser tests do.
 */
class BuilderProjectionTest {
  @TempDir Path dir;

  @Test
  void theBuildersProjectionIsTheServersGraphAndItsEditedFilesLoad() throws Exception {
    Path root = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize().getParent();
    Path ui = root.resolve("loopflow-ui");
    Path vitest = ui.resolve("node_modules/vitest/vitest.mjs");
    if (!Files.isRegularFile(vitest)) {
      fail("loopflow-ui/node_modules is missing: build the web UI first (mvn -pl loopflow-server -am runs its npm ci)");
    }
    Loopflow engine = Loopflow.builder().build();
    Path pin = Files.createDirectories(dir.resolve("pin"));
    Path edits = Files.createDirectories(dir.resolve("edits"));
    List<Path> sources = new ArrayList<>();
    for (Path folder : List.of(root.resolve("examples"), ui.resolve("e2e/workflows"), templatesDir(root))) {
      if (!Files.isDirectory(folder)) {
        continue;
      }
      try (Stream<Path> files = Files.list(folder)) {
        files.filter(p -> p.toString().endsWith(".yaml")).sorted().forEach(sources::add);
      }
    }
    assertThat(sources).as("workflow files to compare").hasSizeGreaterThan(20);
    for (Path f : sources) {
      String text = Files.readString(f, StandardCharsets.UTF_8);
      String name = f.getParent().getFileName() + "-" + f.getFileName();
      // parsed under its own path, so files it names (an agent's workflow tools) resolve as for `loopflow run`
      Workflow wf = engine.parse(text, f.toString());
      Map<String, Object> graph = Loopflow.graph(wf).toJson();
      Files.writeString(pin.resolve(name), text, StandardCharsets.UTF_8);
      Files.writeString(pin.resolve(name.replaceAll("\\.yaml$", ".graph.json")), Json.mapper().writeValueAsString(graph),
          StandardCharsets.UTF_8);
    }

    ProcessBuilder pb = new ProcessBuilder(node(), vitest.toString(), "run", "src/builder/doc/projection.pin.test.ts",
        "src/builder/doc/workflowDoc.test.ts").directory(ui.toFile()).redirectErrorStream(true);
    pb.environment().put("LOOPFLOW_PROJECTION_DIR", pin.toString());
    pb.environment().put("LOOPFLOW_BUILDER_EDITS_DIR", edits.toString());
    pb.environment().put("NO_COLOR", "1");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("vitest finished").isTrue();
    assertThat(p.exitValue()).as("the builder's pin and document tests:\n" + out).isZero();

    List<Path> edited;
    try (Stream<Path> files = Files.list(edits)) {
      edited = files.sorted().toList();
    }
    assertThat(edited).as("edited files written by the document test").hasSizeGreaterThan(20);
    for (Path f : edited) {
      Path original = sources.stream().filter(s -> s.getFileName().equals(f.getFileName())).findFirst().orElseThrow();
      Workflow wf = engine.parse(Files.readString(f, StandardCharsets.UTF_8), original.toString());
      assertThat(wf.nodes()).as("nodes of the edited " + f.getFileName())
          .anyMatch(n -> n.id().equals("builder_extra"));
    }
  }

  /** Where the bundled templates are (loopflow-server's resources); skipped when the folder is absent. */
  private static Path templatesDir(Path root) {
    Path d = root.resolve("loopflow-server/src/main/resources/dev/loopflow/server/internal/templates");
    return d;
  }

  private static String node() throws IOException {
    for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(d.isEmpty() ? "." : d, "node");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    fail("the builder's pin test needs Node.js ('node' is not on the PATH); install Node.js 20.19 or newer");
    return null;
  }
}
