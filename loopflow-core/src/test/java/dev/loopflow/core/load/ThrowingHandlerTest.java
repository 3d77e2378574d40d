package dev.loopflow.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeProgram;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A handler that throws while compiling a node is reported at the node, with a message that says something. */
class ThrowingHandlerTest {
  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of((Supplier<RuntimeException>) NoSuchElementException::new,
            "cannot compile boom node: internal error (NoSuchElementException)"),
        Arguments.of((Supplier<RuntimeException>) NullPointerException::new,
            "cannot compile boom node: internal error (NullPointerException)"),
        Arguments.of((Supplier<RuntimeException>) () -> new IllegalStateException("bad state"),
            "cannot compile boom node: bad state"),
        Arguments.of((Supplier<RuntimeException>) () -> new IllegalArgumentException(" "),
            "cannot compile boom node: internal error (IllegalArgumentException)"));
  }

  @ParameterizedTest
  @MethodSource("failures")
  void handlerExceptionIsReportedAtTheNodeNeverAsNull_bugCompileErrorSaysNull(Supplier<RuntimeException> failure,
      String expected) {
    NodeHandler boom = new NodeHandler() {
      @Override
      public NodeKindSpec spec() {
        return NodeKindSpec.of("boom", null, List.of());
      }

      @Override
      public NodeProgram compile(NodeConfig config) {
        throw failure.get();
      }
    };
    Loopflow engine = Loopflow.builder().handler(boom).build();

    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class, () -> engine.parse("""
        nodes:
          - id: a
            type: boom
        """, "wf.yaml"));

    assertThat(e).isNotNull();
    assertThat(e.problems()).extracting(Problem::format).containsExactly("wf.yaml:2:5: nodes.a: " + expected);
  }
}
