package dev.loopflow.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every file in {@code src/test/resources/broken/} is an invalid workflow; next to {@code NAME.yaml},
 * {@code NAME.expected} holds the exact problems the loader must report, one {@code file:line:col: path: message}
 * per line, in the order {@link WorkflowInvalidException#problems()} gives them.
 */
class BrokenWorkflowCorpusTest {
  private static final Loopflow ENGINE = Loopflow.create();

  static Path corpusDir() {
    try {
      return Path.of(BrokenWorkflowCorpusTest.class.getResource("/broken").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static Stream<String> corpus() throws IOException {
    try (Stream<Path> files = Files.list(corpusDir())) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".yaml"))
          .map(n -> n.substring(0, n.length() - ".yaml".length()))
          .sorted()
          .toList()
          .stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void brokenFileReportsExactlyTheExpectedProblems(String name) throws IOException {
    Path dir = corpusDir();
    String yaml = Files.readString(dir.resolve(name + ".yaml"), StandardCharsets.UTF_8);
    List<String> expected = Files.readAllLines(dir.resolve(name + ".expected"), StandardCharsets.UTF_8).stream()
        .filter(l -> !l.isBlank())
        .toList();

    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> ENGINE.parse(yaml, "broken/" + name + ".yaml"));

    assertThat(e).as("broken/%s.yaml must not load", name).isNotNull();
    assertThat(e.code()).isEqualTo(ErrorCode.WORKFLOW_INVALID);
    assertThat(e.problems()).extracting(Problem::format).containsExactlyElementsOf(expected);
    assertThat(e.getMessage())
        .startsWith(expected.size() + (expected.size() == 1 ? " problem:" : " problems:"))
        .contains(expected);
  }

  @Test
  void corpusHasAtLeastThirtyFilesEachWithItsExpectations() throws IOException {
    List<String> names = corpus().toList();
    assertThat(names).hasSizeGreaterThanOrEqualTo(30);
    try (Stream<Path> files = Files.list(corpusDir())) {
      List<String> expectations = files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".expected"))
          .map(n -> n.substring(0, n.length() - ".expected".length()))
          .sorted()
          .toList();
      assertThat(expectations).containsExactlyElementsOf(names);
    }
  }

  @Test
  void loadingFromAPathReportsThePathAsTheFile() {
    Path file = corpusDir().resolve("duplicate_node_ids.yaml");
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class, () -> ENGINE.load(file));
    assertThat(e.problems()).singleElement()
        .satisfies(p -> assertThat(p.location().file()).isEqualTo(file.toString()))
        .satisfies(p -> assertThat(p.location().line()).isEqualTo(7))
        .satisfies(p -> assertThat(p.path()).isEqualTo("nodes[2].id"));
  }
}
