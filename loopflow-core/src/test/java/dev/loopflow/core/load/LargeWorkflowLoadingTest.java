package dev.loopflow.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Workflows of 20,000 nodes load, and still report what is wrong with them. Loading used to be quadratic in the
 * node count (minutes for 20,000 nodes; a chain of 250 graph-form loops never finished). The timeouts are hang
 * guards only, generous for a busy machine; nothing here measures speed ({@link LoadTimings} does, by hand).
 */
@Tag("slow")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class LargeWorkflowLoadingTest {
  static final int N = 20_000;
  static final Loopflow ENGINE = Loopflow.builder().build();

  @ParameterizedTest
  @EnumSource(LargeWorkflows.Shape.class)
  void twentyThousandNodesLoad_bugLoadingWasQuadraticInTheNodeCount(LargeWorkflows.Shape shape) {
    Workflow wf = ENGINE.parse(shape.source.apply(N), shape.name().toLowerCase() + ".yaml");
    int all = 0;
    for (Node n : wf.nodes()) {
      all += 1 + (n.body() instanceof Node.Loop l ? l.body().size() : 0);
    }
    assertThat(all).isEqualTo(N);
    if (shape == LargeWorkflows.Shape.LOOP_NODES) {
      for (Node n : wf.nodes()) {
        if (n.body() instanceof Node.Loop l && l.config() instanceof LoopConfig.Refine r) {
          assertThat(r.exitId()).isEqualTo(n.id() + "_exit");
        }
      }
    }
  }

  /** A large workflow with one mistake near its end: the mistake, and what the problem must say. */
  static Stream<Arguments> mistakes() {
    String chain = LargeWorkflows.chain(N);
    String loops = LargeWorkflows.loopNodes(N);
    int lastLoop = N / 4 - 1;
    return Stream.of(
        Arguments.of("a cycle", chain + "  - {from: n19999, to: n19990}\n", "dependency cycle"),
        Arguments.of("a forward loop edge", chain + "  - {from: n19990, to: n19999, type: loop, maxIterations: 2}\n",
            "goes forward"),
        Arguments.of("overlapping loop edges", chain + "  - {from: n19999, to: n19996, type: loop, maxIterations: 2}\n"
            + "  - {from: n19998, to: n19995, type: loop, maxIterations: 2}\n", "overlaps"),
        Arguments.of("an unknown edge end", chain + "  - {from: n19999, to: n20000}\n", "unknown node 'n20000'"),
        Arguments.of("an unknown reference", chain.replace("{{ n19998.output }}", "{{ n19989x.output }}"),
            "unknown reference 'n19989x'"),
        Arguments.of("a loop without its exit", loops.replace("  - {id: l" + lastLoop + "_exit, type: exit}\n", "")
            .replace("  - {from: b" + lastLoop + ", to: l" + lastLoop + "_exit}\n", ""), "has no exit"),
        Arguments.of("an exit without its loop", loops.replace("edges:\n", "  - {id: stray_exit, type: exit}\n"
            + "edges:\n"), "no paired loop"),
        Arguments.of("a loop reaching two exits", loops.replace("edges:\n", "  - {id: second_exit, type: exit}\n"
            + "edges:\n  - {from: b" + lastLoop + ", to: second_exit}\n"), "reaches several exit nodes"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mistakes")
  void aMistakeInALargeWorkflowIsStillReported(String what, String source, String expected) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> ENGINE.parse(source, "large.yaml"));
    assertThat(e).as(what).isNotNull();
    assertThat(e.problems()).extracting(Problem::message).anySatisfy(m -> assertThat(m).contains(expected));
  }

  /** Many mistakes at once: every one is reported, and only the first ones get a "did you mean". */
  static Stream<Arguments> manyMistakes() {
    StringBuilder refs = new StringBuilder("name: unknown-refs\nnodes:\n");
    StringBuilder deps = new StringBuilder("name: unknown-deps\nnodes:\n");
    StringBuilder edges = new StringBuilder("name: unknown-edges\nnodes:\n");
    for (int i = 0; i < N; i++) {
      refs.append("  - {id: n").append(i).append(", type: transform, template: \"{{ m").append(i).append(".output }}\"}\n");
      deps.append("  - {id: n").append(i).append(", type: transform, depends_on: [q").append(i).append("], template: x}\n");
      edges.append("  - {id: n").append(i).append(", type: transform, template: x}\n");
    }
    edges.append("edges:\n");
    for (int i = 0; i < N; i++) {
      edges.append("  - {from: n").append(i).append(", to: z").append(i).append("}\n");
    }
    return Stream.of(Arguments.of(refs.toString(), "unknown reference 'm"), Arguments.of(deps.toString(),
        "unknown node 'q"), Arguments.of(edges.toString(), "unknown node 'z"));
  }

  @ParameterizedTest
  @MethodSource("manyMistakes")
  void twentyThousandUnknownNamesAreAllReported_bugHintsMadeLoadingQuadratic(String source, String expected) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> ENGINE.parse(source, "many.yaml"));
    List<String> messages = e.problems().stream().map(Problem::message).toList();
    assertThat(messages).hasSize(N).allSatisfy(m -> assertThat(m).contains(expected));
    assertThat(messages.get(0)).contains("did you mean 'n0'");
  }
}
