package dev.loopflow.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BuilderTest {
  /** A handler for a kind that is also built in: set explicitly, it must win over the built-in one. */
  private static final NodeHandler EXPLICIT_TRANSFORM = new NodeHandler() {
    @Override
    public String kind() {
      return "transform";
    }

    @Override
    public Set<String> fields() {
      return Set.of("template");
    }

    @Override
    public NodeKindSpec spec() {
      return NodeKindSpec.of("transform", null, List.of(FieldSpec.any("template", null)));
    }

    @Override
    public NodeProgram compile(NodeConfig config) {
      return ctx -> NodeOutcome.of("explicit");
    }
  };

  private static final String WORKFLOW = """
      name: w
      nodes:
        - id: t
          type: transform
          template: "built-in"
      output: "{{ t.output }}"
      """;

  @Test
  void buildingTwiceGivesEnginesWithTheSameHandlers() {
    Loopflow.Builder b = Loopflow.builder().handler(EXPLICIT_TRANSFORM);
    Loopflow first = b.build();
    Loopflow second = b.build();
    assertThat(second.handlers().keySet()).isEqualTo(first.handlers().keySet());
    for (Loopflow engine : new Loopflow[] {first, second}) {
      assertThat(engine.handlers().get("transform")).isSameAs(EXPLICIT_TRANSFORM);
      Workflow wf = engine.parse(WORKFLOW, "w.yaml");
      assertThat(engine.run(wf, Map.of()).output()).isEqualTo("explicit");
    }
  }

  @Test
  void enginesBuiltWithoutAStoreDoNotShareOne_bugTwoBuildsSharedOneInMemoryStore() {
    Loopflow.Builder b = Loopflow.builder();
    Loopflow first = b.build();
    Loopflow second = b.build();
    assertThat(first.store()).isNotSameAs(second.store());
    RunResult r = first.run(first.parse(WORKFLOW, "w.yaml"), Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(first.inspect(r.runId())).isPresent();
    assertThat(second.inspect(r.runId())).isEmpty();
  }

  @Test
  void whatIsSetOnTheBuilderAfterABuildDoesNotReachThatEngine() {
    Loopflow.Builder b = Loopflow.builder();
    Loopflow before = b.build();
    b.handler(EXPLICIT_TRANSFORM);
    Loopflow after = b.build();
    assertThat(before.handlers().get("transform")).isNotSameAs(EXPLICIT_TRANSFORM);
    assertThat(after.handlers().get("transform")).isSameAs(EXPLICIT_TRANSFORM);
    assertThat(before.run(before.parse(WORKFLOW, "w.yaml"), Map.of()).output()).isEqualTo("built-in");
  }

  @Test
  void theEnvironmentRunsSeeIsInjectedLikeTheClock() {
    String secret = "injected-credential-4f9c2a";
    Loopflow engine = Loopflow.builder().environment(Map.of("DEPLOY_API_TOKEN", secret)).build();
    Workflow wf = engine.parse("""
        name: echoes
        input:
          text: string
        nodes:
          - id: t
            type: transform
            template: "{{ input.text }}"
        output: "{{ t.output }}"
        """, "w.yaml");
    RunResult r = engine.run(wf, Map.of("text", "the token is " + secret));
    assertThat(String.valueOf(r.output())).doesNotContain(secret);
    assertThat(engine.store().findRun(r.runId()).orElseThrow().output().toString()).doesNotContain(secret);
  }
}
