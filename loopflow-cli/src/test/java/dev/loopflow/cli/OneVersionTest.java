package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The product version is written in one place, the root pom: the CLI, the server and the bench harness read what the
 * build put in their version.properties, and nothing else repeats it.
 */
class OneVersionTest {
  private static final Path ROOT = Path.of("..");

  /** The version of the parent pom, as Maven reads it. */
  static String pomVersion() throws IOException {
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    Matcher m = Pattern.compile("<artifactId>loopflow-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
    assertThat(m.find()).as("the parent pom's version").isTrue();
    return m.group(1);
  }

  @Test
  void versionPrintsThePomsVersion_bugTheCliPrintedAVersionWrittenInItsSource() throws IOException {
    CliTest.Run r = CliTest.cli("--version");

    assertThat(r.status()).isZero();
    assertThat(r.out().strip()).isEqualTo("loopflow " + pomVersion());
  }

  @Test
  void noDocAndNoSourceRepeatsTheVersion_bugTheDocsAndTheUiEachCarriedTheirOwnCopy() throws IOException {
    // The release part of the version (0.1.0 of 0.1.0-SNAPSHOT), wherever it could be copied by hand.
    String release = pomVersion().replace("-SNAPSHOT", "");
    List<Path> places = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("loopflow-ui/package.json")));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).forEach(places::add);
    }
    for (String module : List.of("loopflow-cli", "loopflow-server", "bench")) {
      try (Stream<Path> sources = Files.walk(ROOT.resolve(module).resolve("src/main"))) {
        sources.filter(p -> p.toString().endsWith(".java")).forEach(places::add);
      }
    }
    List<String> copies = new ArrayList<>();
    for (Path p : places) {
      List<String> lines = Files.readAllLines(p);
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).contains(release)) {
          copies.add(ROOT.relativize(p) + ":" + (i + 1) + ": " + lines.get(i).strip());
        }
      }
    }
    assertThat(copies).isEmpty();
  }
}
