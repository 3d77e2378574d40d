package dev.loopflow.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SmokeTest {
  final Loopflow engine = Loopflow.create();

  @Test
  void runsAShellPipelineWithRouting() {
    Workflow wf = engine.parse("""
        name: demo
        input:
          who: string
        nodes:
          - id: greet
            bash: echo "hello {{ input.who }}"
          - id: count
            run: |
              return { n = (state.n or 0) + 1 }
          - id: pick
            type: router
            routes:
              big: "state.n > 5"
              small: default
          - id: say_small
            type: transform
            template: "small {{ greet.output }}"
          - id: say_big
            type: transform
            template: "big"
        edges:
          - {from: greet, to: count}
          - {from: count, to: pick}
          - {from: pick, to: say_small, branch: small}
          - {from: pick, to: say_big, branch: big}
        """, "demo.yaml");
    RunResult r = engine.run(wf, Map.of("who", "$(rm -rf /) {{ x }}"));
    assertThat(r.error()).isNull();
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("greet").get("output")).isEqualTo("hello $(rm -rf /) {{ x }}");
    assertThat(r.nodes().get("say_big").get("status")).isEqualTo("skipped");
    assertThat(r.output()).isEqualTo("small hello $(rm -rf /) {{ x }}");
    assertThat(r.state()).containsEntry("n", 1L);
  }

  @Test
  void reportsEveryProblem() {
    assertThatThrownBy(() -> engine.parse("""
        name: bad
        nodes:
          - id: a
            type: shel
            command: echo
          - id: b
            bash: echo {{ revewer.text }}
            depnds_on: [a]
        edges:
          - {from: a, to: c}
        """, "bad.yaml"))
        .isInstanceOf(WorkflowInvalidException.class)
        .satisfies(e -> System.out.println(e.getMessage()));
  }
}
