package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.Workflow;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The DOT that {@code loopflow graph --format dot} prints, read back by Graphviz when it is installed (the Mermaid
 * output is checked by {@link MermaidGraphTest} on every machine with npm): every example and the hostile-label
 * workflow parse, every branch name reads back as written, and every loop has its back edge.
 */
class DotGraphTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode graphviz(String dot) throws Exception {
    Process p;
    try {
      p = new ProcessBuilder("dot", "-Tjson").start();
    } catch (IOException e) {
      assumeTrue(false, "Graphviz (dot) is not installed");
      return null;
    }
    p.getOutputStream().write(dot.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("%s%n%s", err, dot).isZero();
    assertThat(err).as(dot).isEmpty();
    return JSON.readTree(out);
  }

  @Test
  void everyExampleAndHostileLabelsParseInGraphviz() throws Exception {
    List<Path> files;
    try (Stream<Path> s = Stream.concat(Files.list(Path.of("../examples")),
        Files.list(Path.of("src/test/resources/graph/paths")))) {
      files = Stream.concat(s.filter(p -> p.toString().endsWith(".yaml")).sorted(),
          Stream.of(Path.of("src/test/resources/graph/adversarial-labels.yaml"))).toList();
    }
    for (Path f : files) {
      CliTest.Run r = CliTest.cli("graph", f.toString(), "--format", "dot");
      assertThat(r.status()).as(r.err()).isZero();
      JsonNode g = graphviz(r.out());
      Workflow wf = Loopflow.create().load(f);
      Set<String> labels = new HashSet<>();
      g.path("edges").forEach(e -> labels.add(e.path("label").asText("")));
      for (Edge e : wf.edges()) {
        if (e.branch() != null) {
          assertThat(labels).as(f.toString()).contains(e.branch());
        }
      }
      assertThat(labels.stream().anyMatch(l -> l.startsWith("next "))
          || wf.nodes().stream().noneMatch(n -> n.body() instanceof dev.loopflow.core.model.Node.Loop))
          .as("%s: a back edge for every loop node", f).isTrue();
    }
  }
}
