package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Mermaid that {@code loopflow graph} prints, read by Mermaid's own parser (the npm package, pinned in
 * src/test/mermaid/package-lock.json and installed with {@code npm ci} under target/): every example parses, loops
 * are drawn as loops (a subgraph for the body and a dotted edge back to the loop node), and in a workflow full of
 * hostile ids and labels every label reads back as exactly the text loopflow meant. Skipped only when npm is not
 * installed; with npm present, a failing install fails the test.
 */
class MermaidGraphTest {
  private static final Path EXAMPLES = Path.of("../examples");
  private static final Path CHECKER = Path.of("src/test/mermaid");
  private static final Path INSTALL = Path.of("target/mermaid-check");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path dir;

  static boolean npm;
  static final Path ADVERSARIAL = Path.of("src/test/resources/graph/adversarial-labels.yaml");
  static final Path PATHS = Path.of("src/test/resources/graph/paths");
  static List<Path> examples;
  /** Diagram name (example file name, or "adversarial") to its Mermaid text and to what Mermaid understood. */
  static final Map<String, String> diagrams = new LinkedHashMap<>();
  static Map<String, JsonNode> parsed;

  @BeforeAll
  static void installAndParse() throws Exception {
    npm = runs("npm", "--version") && runs("node", "--version");
    if (npm) {
      install();
      parseAll();
    }
  }

  private static void install() throws Exception {
    Files.createDirectories(INSTALL);
    for (String f : List.of("package.json", "package-lock.json", "parse.mjs")) {
      Files.copy(CHECKER.resolve(f), INSTALL.resolve(f), StandardCopyOption.REPLACE_EXISTING);
    }
    // npm ci wipes and reinstalls node_modules; it runs again only when the lock file changed.
    Path stamp = INSTALL.resolve("node_modules/.loopflow-lock-sha256");
    String lock = sha256(Files.readAllBytes(INSTALL.resolve("package-lock.json")));
    if (Files.exists(stamp) && Files.readString(stamp).equals(lock)) {
      return;
    }
    Path log = INSTALL.resolve("npm-ci.log");
    Process p = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
        .directory(INSTALL.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean done = p.waitFor(5, TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly();
    }
    assertThat(done && p.exitValue() == 0).as("npm ci in %s:%n%s", INSTALL, Files.readString(log)).isTrue();
    Files.writeString(stamp, lock);
  }

  /** Every diagram is parsed in one node process: starting Mermaid costs seconds, parsing milliseconds. */
  private static void parseAll() throws Exception {
    // The examples, and the nested constructs of the graph paths corpus.
    try (Stream<Path> s = Stream.concat(Files.list(EXAMPLES), Files.list(PATHS))) {
      examples = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    for (Path p : examples) {
      diagrams.put(p.getFileName().toString(), mermaidOf(p));
    }
    diagrams.put("adversarial", mermaidOf(ADVERSARIAL));
    parsed = parse(diagrams);
  }

  private static boolean runs(String... cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static String sha256(byte[] b) throws Exception {
    return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  /** Parses every diagram with Mermaid in one node process; file name to what Mermaid understood. */
  static Map<String, JsonNode> parse(Map<String, String> diagrams) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("node", INSTALL.resolve("parse.mjs").toString()));
    Map<String, String> byFile = new HashMap<>();
    int i = 0;
    for (Map.Entry<String, String> d : diagrams.entrySet()) {
      Path f = dir.resolve("d" + i++ + ".mmd");
      Files.writeString(f, d.getValue(), StandardCharsets.UTF_8);
      cmd.add(f.toString());
      byFile.put(f.toString(), d.getKey());
    }
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(new String(out, StandardCharsets.UTF_8)).isZero();
    Map<String, JsonNode> result = new LinkedHashMap<>();
    for (JsonNode r : JSON.readTree(out)) {
      result.put(byFile.get(r.get("file").asText()), r);
    }
    return result;
  }

  private static String mermaidOf(Path file) {
    CliTest.Run r = CliTest.cli("graph", file.toString());
    assertThat(r.status()).as(file + ": " + r.err()).isZero();
    return r.out();
  }

  @Test
  void everyExampleParsesAndDrawsEachLoopAsALoop_bugLoopExitAndIteratorDrawnAsChains() throws Exception {
    assumeTrue(npm, "npm is not installed");
    Loopflow engine = Loopflow.create();
    for (Path p : examples) {
      String name = p.getFileName().toString();
      JsonNode r = parsed.get(name);
      assertThat(r.get("ok").asBoolean()).as("%s: %s%n%s", name, r.path("error").asText(), diagrams.get(name))
          .isTrue();
      Workflow wf = engine.load(p);
      for (Node n : wf.nodes()) {
        if (!(n.body() instanceof Node.Loop)) {
          continue;
        }
        // The loop's body is a subgraph, and a dotted edge leads from it back to the loop node.
        JsonNode sub = subgraph(r, n.id() + " body (" + n.kind());
        assertThat(sub).as("%s: subgraph for %s in%n%s", name, n.id(), diagrams.get(name)).isNotNull();
        assertThat(sub.get("nodes").size()).isPositive();
        String loopVertex = vertexId(r, n.id() + "<br><i>" + n.kind() + "</i>");
        assertThat(edges(r)).as("%s: back edge of %s", name, n.id()).anyMatch(e -> e.get("from").asText()
            .equals(sub.get("id").asText()) && e.get("to").asText().equals(loopVertex)
            && e.get("stroke").asText().equals("dotted"));
      }
      for (Edge e : wf.edges()) {
        if (e.isLoop()) {
          assertThat(edges(r)).as("%s: loop edge %s -> %s", name, e.from(), e.to()).anyMatch(x -> x.get("stroke")
              .asText().equals("dotted") && x.get("text").asText().endsWith("max " + e.maxIterations()));
        }
      }
    }
    // The graph-form loops are boxes around exactly their bodies.
    assertThat(members(parsed.get("loop-self-refine.yaml"), "refine body")).containsExactlyInAnyOrder(
        "draft", "critique", "merge");
    assertThat(members(parsed.get("loop-iterator.yaml"), "each_word body")).containsExactlyInAnyOrder(
        "measure", "label");
    assertThat(members(parsed.get("loop-agentic-search.yaml"), "research body")).contains("plan", "search", "enough", "missing")
        .doesNotContain("research", "research_exit", "answer");
  }

  @Test
  void hostileIdsAndLabelsReadBackExactly_bugUnquotedMermaidLabels() throws Exception {
    assumeTrue(npm, "npm is not installed");
    Workflow wf = Loopflow.create().load(ADVERSARIAL);
    JsonNode r = parsed.get("adversarial");
    assertThat(r.get("ok").asBoolean()).as("%s%n%s", r.path("error").asText(), diagrams.get("adversarial")).isTrue();

    Set<String> expectedVertices = new HashSet<>();
    addVertices(wf.nodes(), expectedVertices);
    Set<String> vertices = new HashSet<>();
    r.get("vertices").forEach(v -> {
      if (v.get("type").isTextual()) {
        vertices.add(v.get("text").asText());
      }
    });
    assertThat(vertices).isEqualTo(expectedVertices);

    Set<String> labels = new HashSet<>();
    edges(r).forEach(e -> labels.add(e.get("text").asText()));
    Set<String> expectedLabels = new HashSet<>(Set.of("", "next pass, max 2"));
    for (Edge e : wf.edges()) {
      expectedLabels.add(e.branch() != null ? e.branch() : e.when() == null ? "" : e.when().source());
    }
    assertThat(labels).isEqualTo(expectedLabels);
    assertThat(expectedLabels).contains("a|b", "say \"hi\"", "-->", "#quot; #35; &amp; <b>bold</b>",
        "ünï©ødé → 世界 🎉", "input.t != '-->|\"] end'");
  }

  private static void addVertices(List<Node> nodes, Set<String> out) {
    for (Node n : nodes) {
      out.add(n.id() + "<br><i>" + n.kind() + "</i>");
      if (n.body() instanceof Node.Loop l) {
        addVertices(l.body(), out);
      }
    }
  }

  private static List<JsonNode> edges(JsonNode r) {
    List<JsonNode> out = new ArrayList<>();
    r.get("edges").forEach(out::add);
    return out;
  }

  private static JsonNode subgraph(JsonNode r, String titlePrefix) {
    for (JsonNode s : r.get("subgraphs")) {
      if (s.get("title").asText().startsWith(titlePrefix)) {
        return s;
      }
    }
    return null;
  }

  private static String vertexId(JsonNode r, String text) {
    var it = r.get("vertices").fields();
    while (it.hasNext()) {
      var v = it.next();
      if (v.getValue().get("text").asText().equals(text)) {
        return v.getKey();
      }
    }
    return null;
  }

  /** The node ids (as their labels say) inside the subgraph whose title starts with {@code titlePrefix}. */
  private static List<String> members(JsonNode r, String titlePrefix) {
    JsonNode sub = subgraph(r, titlePrefix);
    assertThat(sub).as(titlePrefix).isNotNull();
    List<String> out = new ArrayList<>();
    for (JsonNode id : sub.get("nodes")) {
      String text = r.get("vertices").get(id.asText()).get("text").asText();
      out.add(text.substring(0, text.indexOf("<br>")));
    }
    return out;
  }
}
