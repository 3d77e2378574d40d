package dev.loopflow.core.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopIterationExceededException;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.MaxIterationsExceededException;
import dev.loopflow.core.error.ScriptLimitExceededException;
import dev.loopflow.core.error.ShellValueRejectedException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link RunResult#orThrow()}: a Java caller gets the typed exception a run ended with, with its fields, rebuilt from
 * the run's error (code and details), so the same holds for a result read back from the store.
 */
class RunResultOrThrowTest {
  private final Loopflow engine = Loopflow.create();

  private static final String EDGE = """
      name: edge
      nodes:
        - {id: work, run: "return { n = (state.n or 0) + 1 }"}
        - {id: check, depends_on: [work], bash: "echo again"}
      edges:
        - {from: check, to: work, type: loop, maxIterations: 3}
      """;

  private static final String WHILE = """
      name: forever
      nodes:
        - id: w
          type: while_loop
          condition: "true"
          max_iterations: 4
          body:
            - {id: inc, run: "return { n = (state.n or 0) + 1 }"}
      """;

  private RunResult run(String yaml) {
    return engine.run(engine.parse(yaml, "t.yaml"), Map.of());
  }

  @Test
  void aLoopEdgePastItsBoundThrowsTheTypedExceptionWithLoopBoundAndPasses_bugOnlyAnUntypedDetailsMap() {
    RunResult r = run(EDGE);
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);

    Throwable thrown = catchThrowable(r::orThrow);
    assertThat(thrown).isInstanceOfSatisfying(LoopIterationExceededException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.LOOP_ITERATION_EXCEEDED);
      assertThat(e.loopId()).isEqualTo("check->work");
      assertThat(e.edgeFrom()).isEqualTo("check");
      assertThat(e.edgeTo()).isEqualTo("work");
      assertThat(e.maxIterations()).isEqualTo(3);
      assertThat(e.passes()).isEqualTo(3);
      assertThat(e.getMessage()).isEqualTo(r.error().message());
      assertThat(e.position().path()).isEqualTo("check->work");
      assertThat(e.details()).isEqualTo(r.error().details());
    });
    assertThat(r.error().details()).containsEntry("passes", 3);

    // Read back from the store: the same exception.
    RunResult stored = engine.inspect(r.runId()).orElseThrow().result();
    assertThat(catchThrowable(stored::orThrow)).isInstanceOfSatisfying(LoopIterationExceededException.class,
        e -> assertThat(e.passes()).isEqualTo(3));
  }

  @Test
  void aWhileLoopPastItsBoundThrowsMaxIterationsExceededWithItsConstruct_bugOnlyAnUntypedDetailsMap() {
    RunResult r = run(WHILE);

    assertThat(catchThrowable(r::orThrow)).isInstanceOfSatisfying(MaxIterationsExceededException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.MAX_ITERATIONS_EXCEEDED);
      assertThat(e.loopId()).isEqualTo("w");
      assertThat(e.construct()).isEqualTo("while_loop");
      assertThat(e.maxIterations()).isEqualTo(4);
      assertThat(e.passes()).isEqualTo(4);
      assertThat(e.getMessage()).isEqualTo(r.error().message());
    });
  }

  @Test
  void anErrorReadFromJsonRebuildsTheSameTypedException() {
    // A JSON reader gives numbers back as Long or Double: the fields are the same.
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("edgeFrom", "reviewer");
    details.put("edgeTo", "coder");
    details.put("maxIterations", 2L);
    details.put("passes", 2.0);
    RunError journaled = new RunError(ErrorCode.LOOP_ITERATION_EXCEEDED, "loop edge reviewer -> coder exceeded",
        "reviewer", "outer[2].reviewer->coder", details);

    LoopflowException e = journaled.toException();
    assertThat(e).isInstanceOfSatisfying(LoopIterationExceededException.class, le -> {
      assertThat(le.maxIterations()).isEqualTo(2);
      assertThat(le.passes()).isEqualTo(2);
      assertThat(le.loopId()).isEqualTo("reviewer->coder");
    });
    assertThat(e.position().loops()).containsExactly(new dev.loopflow.core.error.NodePosition.LoopFrame("outer", 2));
    assertThat(e.position().nodeId()).isEqualTo("reviewer->coder");

    // A pipeline's refused restart journaled before the details were unified: still typed.
    LoopflowException restart = new RunError(ErrorCode.MAX_ITERATIONS_EXCEEDED, "max iterations exceeded (3 "
        + "iterations), workflow terminated", "review", "restart", Map.of("max_iterations", 3)).toException();
    assertThat(restart).isInstanceOfSatisfying(MaxIterationsExceededException.class, m -> {
      assertThat(m.loopId()).isEqualTo("restart");
      assertThat(m.maxIterations()).isEqualTo(3);
    });
  }

  @Test
  void otherErrorsKeepTheirCodeDetailsAndTypedForms() {
    LoopflowException script = new RunError(ErrorCode.NODE_FAILED, "Lua error: too much", "s", "s",
        Map.of("limit", "max_memory", "value", 8388608L)).toException();
    assertThat(script).isInstanceOfSatisfying(ScriptLimitExceededException.class, s -> {
      assertThat(s.limit()).isEqualTo("max_memory");
      assertThat(s.value()).isEqualTo(8388608L);
    });
    LoopflowException shell = new RunError(ErrorCode.NODE_FAILED, "refused", "sh", null,
        Map.of("field", "bash", "source", "{{ input.n }}", "rule", "integer")).toException();
    assertThat(shell).isInstanceOfSatisfying(ShellValueRejectedException.class,
        s -> assertThat(s.rule()).isEqualTo(ShellValueRejectedException.Rule.INTEGER));

    RunResult failed = run("""
        name: boom
        nodes:
          - {id: boom, bash: "exit 3"}
        """);
    LoopflowException e = (LoopflowException) catchThrowable(failed::orThrow);
    assertThat(e.getClass()).isEqualTo(LoopflowException.class);
    assertThat(e.code()).isEqualTo(ErrorCode.NODE_FAILED);
    assertThat(e.nodeId()).isEqualTo("boom");
    assertThat(e.getMessage()).isEqualTo(failed.error().message());
    assertThat(e.details()).isEqualTo(failed.error().details());
  }

  @Test
  void aCompletedRunIsReturnedAsItIs() {
    RunResult r = run("""
        name: fine
        nodes:
          - {id: a, bash: "echo ok"}
        """);
    assertThat(r.orThrow()).isSameAs(r);
  }
}
