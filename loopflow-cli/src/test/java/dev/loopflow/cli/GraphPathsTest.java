package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.graph.GraphContainer;
import dev.loopflow.core.graph.GraphElement;
import dev.loopflow.core.graph.GraphNode;
import dev.loopflow.core.graph.GraphRestart;
import dev.loopflow.core.graph.WorkflowGraph;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.store.jdbc.JdbcStores;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every journaled path of a real run lands on exactly one element of the workflow's graph: each example (run
 * offline, as with no flags, answering the mock from its {@code mock:} block) and a corpus of nested constructs
 * (a loop edge around an iterator around a while_loop, loop_groups in loop_groups with an until command, a loop edge
 * inside a loop body, loops under a restart policy, hostile ids) are run, and every event that names a position
 * and every node execution in the journal is placed with {@link WorkflowGraph#at}: on the graph node of that id,
 * or for a loop edge's own events its container, or for the restart loop's its {@link GraphRestart}.
 */
class GraphPathsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private String oldHome;
  private Map<String, String> oldEnv;

  @BeforeEach
  void noProvider() {
    oldHome = System.getProperty("loopflow.home");
    System.setProperty("loopflow.home", dir.toString());
    oldEnv = Support.environment;
    Map<String, String> env = new java.util.HashMap<>(System.getenv());
    for (dev.loopflow.llm.provider.Provider p : dev.loopflow.llm.provider.Provider.values()) {
      env.remove(p.baseUrlVariable());
      p.apiKeyVariable().ifPresent(env::remove);
    }
    Support.environment = Map.copyOf(env);
  }

  @AfterEach
  void restore() {
    System.setProperty("loopflow.home", oldHome);
    Support.environment = oldEnv;
  }

  static List<Path> workflows() throws IOException {
    List<Path> out = new ArrayList<>();
    for (Path d : List.of(Path.of("../examples"), Path.of("src/test/resources/graph/paths"))) {
      try (Stream<Path> s = Files.list(d)) {
        s.filter(p -> p.toString().endsWith(".yaml")).sorted().forEach(out::add);
      }
    }
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("workflows")
  void everyEventAndExecutionPathLandsOnExactlyOneGraphElement(Path file) throws Exception {
    String text = Files.readString(file);
    if (text.contains("python3")) {
      assumeTrue(python3(), file + " needs python3");
    }
    WorkflowGraph graph = Loopflow.graph(Loopflow.create().load(file));
    Path events = dir.resolve("events.jsonl");
    String store = "sqlite:" + dir.resolve("runs.db");
    List<String> args = new ArrayList<>(List.of("run", file.toString(), "--json", "--quiet", "--events-jsonl",
        events.toString(), "--store", store));
    if (text.contains("interactive: true")) {
      args.addAll(List.of("--answer", "make it shorter", "--answer", "approve"));
    }
    if (file.getFileName().toString().equals("approval-form.yaml")) {
      // its approval asks for a form: answered in one go, as its header shows
      args.addAll(List.of("--answer", "{\"version\": \"v2.1.0\", \"channel\": \"stable\"}"));
    }

    CliTest.Run run = CliTest.cli(args.toArray(String[]::new));

    assertThat(run.status()).as(run.err()).isZero();
    int placed = 0;
    for (String line : Files.readAllLines(events)) {
      JsonNode e = JSON.readTree(line);
      if (e.hasNonNull("path")) {
        assertPlaced(graph, e.get("path").asText(), e.get("node").asText(), null, file + ": " + line);
        placed++;
      }
    }
    String runId = JSON.readTree(run.out()).get("run_id").asText();
    List<NodeExecution> rows;
    try (RunStore s = JdbcStores.open(store)) {
      rows = s.nodeExecutions(runId);
    }
    for (NodeExecution x : rows) {
      assertPlaced(graph, x.position().path(), x.position().nodeId(), x.kind(), file + ": execution " + x.position()
          + " (" + x.kind() + ")");
    }
    assertThat(placed).as("events placed").isPositive();
    assertThat(rows).as("executions journaled").isNotEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("workflows")
  void graphFormatJsonPrintsTheWorkflowGraph(Path file) throws Exception {
    CliTest.Run r = CliTest.cli("graph", file.toString(), "--format", "json");

    assertThat(r.status()).as(r.err()).isZero();
    JsonNode printed = JSON.readTree(r.out());
    assertThat(printed).isEqualTo(JSON.valueToTree(Loopflow.graph(Loopflow.create().load(file)).toJson()));
    assertThat(printed.get("nodes")).isNotEmpty();
  }

  /**
   * The path lands on one element, and it is the right one: a node of that id (and, for an execution, of that
   * kind), a loop edge's container for its own events, the restart loop for its own, or for an execution holding
   * restart decisions the node they were decided after.
   */
  private static void assertPlaced(WorkflowGraph g, String path, String nodeId, String kind, String what) {
    String match = WorkflowGraph.matchPath(path);
    long nodes = g.nodes().stream().filter(n -> match.equals(n.path())).count();
    List<GraphContainer> containers = g.containers().stream().filter(c -> c.path().equals(match)).toList();
    assertThat(nodes).as(what).isLessThanOrEqualTo(1);
    assertThat(containers).as(what).hasSizeLessThanOrEqualTo(1);
    GraphElement e = g.at(path).orElse(null);
    assertThat(e).as("%s lands nowhere in %s", what, g.toJson()).isNotNull();
    String decidedAfter = kind == null ? null : RestartPolicy.decidedAfter(kind, nodeId);
    switch (e) {
      case GraphNode n -> {
        assertThat(n.id()).as(what).isEqualTo(decidedAfter != null ? decidedAfter : nodeId);
        if (kind != null && decidedAfter == null) {
          assertThat(n.kind()).as(what).isEqualTo(kind);
        }
        // A loop node's container shares its path: it is the same loop, not a second place.
        assertThat(containers).as(what).allMatch(c -> n.key().equals(c.node()));
      }
      case GraphContainer c -> {
        assertThat(c.construct()).as(what).isEqualTo(GraphContainer.LOOP_EDGE);
        assertThat(c.node()).as(what).isNull();
        assertThat(nodes).as(what).isZero();
        assertThat(match).as(what).endsWith(decidedAfter != null ? decidedAfter : nodeId);
      }
      case GraphRestart r -> {
        assertThat(nodeId).as(what).isEqualTo(RestartPolicy.LOOP_ID);
        assertThat(nodes + containers.size()).as(what).isZero();
      }
    }
  }

  private static boolean python3() {
    try {
      Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }
}
