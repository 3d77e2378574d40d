package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sources near the request limit built to make validation expensive: each is answered with problems (or a 413),
 * never a failure, and never held for minutes (the timeout is a hang guard, not a measurement).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@org.junit.jupiter.api.Tag("slow")
class ValidateBoundsTest {
  @TempDir static Path tmp;
  static ServerHarness h;

  @BeforeAll
  static void start() {
    h = new ServerHarness(tmp);
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static String nodes(int n, String each) {
    StringBuilder sb = new StringBuilder("name: big\nnodes:\n");
    for (int i = 0; i < n; i++) {
      sb.append(each.replace("#", Integer.toString(i)).replace("@", Integer.toString(Math.max(0, i - 1))));
    }
    return sb.toString();
  }

  static String loopEdges(int n) {
    StringBuilder sb = new StringBuilder(nodes(n, "  - {id: n#, type: transform, template: x}\n")).append("edges:\n");
    for (int i = 1; i < n; i++) {
      sb.append("  - {from: n").append(i - 1).append(", to: n").append(i).append("}\n");
    }
    for (int i = 0; i + 3 < n; i += 4) {
      sb.append("  - {from: n").append(i + 3).append(", to: n").append(i).append(", type: loop, maxIterations: 2}\n");
    }
    return sb.toString();
  }

  static Stream<Arguments> expensive() {
    StringBuilder blockNesting = new StringBuilder("name: deep\nnodes:\n  - id: a\n    type: transform\n    template: x\n"
        + "    meta:\n");
    for (int i = 0; i < 600; i++) {
      blockNesting.append("  ".repeat(i + 3)).append("k:\n");
    }
    StringBuilder manyEdges = new StringBuilder(nodes(2, "  - {id: n#, type: transform, template: x}\n"))
        .append("edges:\n");
    for (int i = 0; i < 40_000; i++) {
      manyEdges.append("  - {from: n0, to: n1}\n");
    }
    return Stream.of(
        Arguments.of("a chain of 9,000 nodes", nodes(9_000,
            "  - {id: n#, type: transform, depends_on: [n@], template: \"{{ n@.output }}\"}\n")),
        Arguments.of("a fan-out of 12,000 nodes", nodes(12_000,
            "  - {id: n#, type: transform, depends_on: [n0], template: \"{{ n0.output }}\"}\n")),
        Arguments.of("12,000 unknown references", nodes(12_000, "  - {id: n#, type: transform, template: \"{{ m#.x }}\"}\n")),
        Arguments.of("12,000 unknown dependencies", nodes(12_000, "  - {id: n#, type: transform, depends_on: [q#]}\n")),
        Arguments.of("2,000 loop edges over a chain", loopEdges(8_000)),
        Arguments.of("40,000 edges between two nodes", manyEdges.toString()),
        Arguments.of("flow nesting", "a: " + "[".repeat(200_000)),
        Arguments.of("block nesting", blockNesting.toString()),
        Arguments.of("a 900 KB template", "name: s\nnodes:\n  - id: a\n    type: transform\n    template: |\n"
            + ("      " + "{{ a }} x ".repeat(9) + "\n").repeat(9_000)),
        Arguments.of("one template with 40,000 references", "name: r\nnodes:\n  - {id: b, type: transform, template: y}\n"
            + "  - id: a\n    type: transform\n    template: |\n" + ("      {{ b.output }}{{ c.output }}\n").repeat(20_000)),
        Arguments.of("an alias bomb", "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "b: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
            + "c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c]\n"
            + "e: &e [*d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e]\n"),
        Arguments.of("a 99,000-character line", "name: l\nnodes:\n  - {id: a, type: transform, template: \""
            + "y".repeat(99_000) + "\"}\n"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("expensive")
  void anExpensiveSourceIsAnsweredWithProblems(String what, String source) {
    ServerHarness.Response r = h.post("/api/validate", ServerHarness.map("source", source));
    assertThat(r.status()).as(what + ": " + r.body().substring(0, Math.min(300, r.body().length()))).isIn(200, 413);
    assertThat(r.body()).doesNotContain("Exception").doesNotContain("at dev.");
    if (r.status() == 200) {
      assertThat(r.json().has("valid")).isTrue();
    }
  }
}
