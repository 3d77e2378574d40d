package dev.loopflow.llm.loops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a loop body writes either takes effect or is refused at load, naming what to write instead: the
 * {@code $LOOP_PREV} shorthand in a script's code (which is not a template), and {@code fresh_context: false} on a
 * group whose body has no session to continue.
 */
class LoopBodySilentNoOpsTest {
  private static final Loopflow ENGINE = Loopflow.create();

  @Test
  void loopPrevInALuaBodyScriptIsALoadErrorNamingLoopPrev_bugItStayedLiteralText() {
    assertThat(LoopGroupValidationTest.problems("""
        nodes:
          - id: w
            type: while_loop
            condition: "(state.n or 0) < 2"
            max_iterations: 3
            body:
              - id: inc
                run: |
                  return { n = (state.n or 0) + 1, prev = "$LOOP_PREV.inc.output", who = "$LOOP_USER_INPUT" }
        """)).containsExactly(
        "lg.yaml:8:14: nodes.w.body.inc.run: $LOOP_PREV.inc.output is template shorthand, and a script's code is "
            + "not a template (it would stay literal text); in Lua read loop.prev['inc'].output instead (Python "
            + "and Node scripts see only state and input)",
        "lg.yaml:8:14: nodes.w.body.inc.run: $LOOP_USER_INPUT is template shorthand, and a script's code is not a "
            + "template (it would stay literal text); in Lua read loop.user_input instead (Python and Node scripts "
            + "see only state and input)");
  }

  @Test
  void theLuaAlternativeTheErrorNamesReadsThePreviousPass() {
    RunResult r = ENGINE.run(ENGINE.parse("""
        nodes:
          - id: w
            type: while_loop
            condition: "(state.n or 0) < 3"
            max_iterations: 5
            body:
              - id: inc
                run: |
                  local before = loop.prev['inc'] and loop.prev['inc'].output.n or 0
                  return { n = (state.n or 0) + 1, seen = before }
        """, "ok.yaml"), Map.of());
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.state()).containsEntry("n", 3L).containsEntry("seen", 2L);
  }

  @Test
  void freshContextFalseWithoutAnySessionInTheBodyIsALoadError_bugItSilentlyGaveNoContinuity() {
    assertThat(LoopGroupValidationTest.problems("""
        defaults: {model: "mock:demo"}
        nodes:
          - id: g
            loop_group:
              max_iterations: 2
              fresh_context: false
              nodes:
                - {id: chat, prompt: "question {{ loop.iteration }}", mock: ["an answer"]}
        """)).containsExactly(
        "lg.yaml:6:22: nodes.g.fresh_context: loop_group 'g': fresh_context: false continues LLM conversations "
            + "across passes, but no node of its body has a session:, so every call would start a new "
            + "conversation; add session: NAME to the llm or agent nodes whose conversation should continue (or "
            + "leave fresh_context out)");
  }

  @Test
  void freshContextFalseWithASessionInANestedBodyLoads() {
    ENGINE.parse("""
        defaults: {model: "mock:demo"}
        nodes:
          - id: g
            loop_group:
              max_iterations: 2
              fresh_context: false
              nodes:
                - id: inner
                  type: while_loop
                  condition: "false"
                  max_iterations: 1
                  body:
                    - {id: chat, session: conv, prompt: "question"}
        """, "ok.yaml");
  }
}
