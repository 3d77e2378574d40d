package dev.loopflow.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A node's scope is looked up lazily from copy-on-write frame snapshots instead of being copied into a new map for
 * every execution. These tests hold it to the map it replaced: the same answers, the same iteration order, the
 * same snapshot semantics, over generated frames; and they pin that a loop pass which reads one name builds no map.
 */
class NodeScopeTest {
  private static final List<String> VARIABLES = List.of("input", "flow", "state", "env", "run", "loop", "pipeline");

  /** The scope as it was built before: every frame's results copied, outermost first, then the variables. */
  private static Map<String, Object> eager(List<Map<String, Map<String, Object>>> framesOuterFirst,
      Map<String, Object> input, Map<String, Object> flow, Map<String, Object> state, Map<String, Object> env,
      Map<String, Object> run, Map<String, Object> loop, Object pipeline) {
    Map<String, Object> scope = new HashMap<>(32);
    for (Map<String, Map<String, Object>> f : framesOuterFirst) {
      scope.putAll(f);
    }
    scope.put("input", input);
    scope.put("flow", flow);
    scope.put("state", state);
    scope.put("env", env);
    scope.put("run", run);
    if (loop != null) {
      scope.put("loop", loop);
    }
    if (pipeline != null) {
      scope.put("pipeline", pipeline);
    }
    return Collections.unmodifiableMap(scope);
  }

  private static String id(Random random) {
    int kind = random.nextInt(10);
    if (kind == 0) {
      return VARIABLES.get(random.nextInt(VARIABLES.size())); // a node named like a variable
    }
    if (kind == 1) {
      return "Aa".repeat(1 + random.nextInt(3)) + "BB".repeat(random.nextInt(3)); // colliding hash codes
    }
    return "n" + random.nextInt(40);
  }

  @Test
  void answersLikeTheEagerlyBuiltMapOverGeneratedFrames() {
    Random random = new Random(7);
    for (int c = 0; c < 2_000; c++) {
      int depth = 1 + random.nextInt(5);
      Frame frame = Frame.top(new Budgets(Budget.NONE));
      // A mirror of each frame's results, written the way the frame used to write them: one map, in place.
      List<Map<String, Map<String, Object>>> mirrors = new ArrayList<>();
      List<Frame> frames = new ArrayList<>();
      for (int d = 0; d < depth; d++) {
        if (d > 0) {
          frame = frame.child("loop" + d, 1 + random.nextInt(3), null, null, null);
        }
        frames.add(frame);
        mirrors.add(new HashMap<>());
      }
      int writes = random.nextInt(40);
      for (int w = 0; w < writes; w++) {
        int d = random.nextInt(depth);
        String id = id(random);
        Map<String, Object> result = new LinkedHashMap<>(Map.of("output", "v" + c + "." + w, "status", "completed"));
        switch (random.nextInt(4)) {
          case 0 -> frames.get(d).mark(id, NodeStatus.FAILED, result);
          case 1 -> frames.get(d).attach(id, "loop", Map.of("count", w));
          case 2 -> {
            if (random.nextInt(4) == 0) {
              Set<String> gone = new HashSet<>(List.of(id, id(random)));
              frames.get(d).forget(gone);
              gone.forEach(mirrors.get(d)::remove);
              continue;
            }
            frames.get(d).complete(id, result, NodeStatus.COMPLETED);
          }
          default -> frames.get(d).complete(id, result, NodeStatus.COMPLETED);
        }
        mirrors.get(d).put(id, frames.get(d).ownResult(id));
      }
      for (int d = 0; d < depth; d++) {
        assertThat(new ArrayList<>(frames.get(d).ownResults().entrySet()))
            .as("case %d: iteration order of frame %d", c, d)
            .containsExactlyElementsOf(new ArrayList<>(mirrors.get(d).entrySet()));
      }
      Map<String, Object> input = Map.of("n", c);
      Map<String, Object> flow = Map.of("name", "w");
      Map<String, Object> state = Map.of("count", c);
      Map<String, Object> env = Map.of();
      Map<String, Object> run = Map.of("id", "r" + c);
      Map<String, Object> loop = random.nextBoolean() ? Map.of("iteration", 1) : null;
      Object pipeline = random.nextInt(4) == 0 ? Map.of("stage", "s") : null;
      Map<String, Object> lazy = new NodeScope(frame, input, flow, state, env, run, loop, pipeline);
      Map<String, Object> expected = eager(mirrors, input, flow, state, env, run, loop, pipeline);

      List<String> probes = new ArrayList<>(VARIABLES);
      for (int i = 0; i < 20; i++) {
        probes.add(id(random));
      }
      for (String k : probes) {
        assertThat(lazy.get(k)).as("case %d: get(%s)", c, k).isSameAs(expected.get(k));
        assertThat(lazy.containsKey(k)).as("case %d: containsKey(%s)", c, k).isEqualTo(expected.containsKey(k));
      }
      // A key that is not a String is absent, as the Map contract says: the mistake the check looks for is
      // the very call under test.
      @SuppressWarnings("CollectionIncompatibleType")
      Object notAStringKey = lazy.get(42);
      assertThat(notAStringKey).isNull();
      // Completions after the scope was made are not seen, neither by lookups nor by the whole map.
      frames.get(depth - 1).complete("late" + c, new LinkedHashMap<>(Map.of("output", 1)), NodeStatus.COMPLETED);
      frames.get(0).complete("n1", new LinkedHashMap<>(Map.of("output", "late")), NodeStatus.COMPLETED);
      assertThat(lazy.get("late" + c)).isNull();
      assertThat(lazy.get("n1")).isSameAs(expected.get("n1"));
      assertThat(new ArrayList<>(lazy.entrySet())).as("case %d: entries in order", c)
          .containsExactlyElementsOf(new ArrayList<>(expected.entrySet()));
      assertThat(lazy).hasSize(expected.size()).isEqualTo(expected);
      assertThat(lazy.hashCode()).isEqualTo(expected.hashCode());
      assertThat(lazy.toString()).isEqualTo(expected.toString());
      assertThatThrownBy(() -> lazy.put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
      assertThatThrownBy(() -> lazy.remove("state")).isInstanceOf(UnsupportedOperationException.class);
      assertThatThrownBy(lazy::clear).isInstanceOf(UnsupportedOperationException.class);
    }
  }

  @Test
  void copyingAPassUpKeepsTheOrderOfTheFrameWrittenInPlace() {
    Random random = new Random(11);
    for (int c = 0; c < 500; c++) {
      Frame outer = Frame.top(new Budgets(Budget.NONE));
      Map<String, Map<String, Object>> mirror = new HashMap<>();
      for (int pass = 1; pass <= 1 + random.nextInt(6); pass++) {
        Frame body = outer.child("l", pass, null, null, null);
        Map<String, Map<String, Object>> passMirror = new HashMap<>();
        for (int w = random.nextInt(30); w > 0; w--) {
          String id = id(random);
          body.complete(id, new LinkedHashMap<>(Map.of("output", w)), NodeStatus.COMPLETED);
          passMirror.put(id, body.ownResult(id));
        }
        body.copyUp();
        mirror.putAll(new HashMap<>(passMirror));
      }
      assertThat(new ArrayList<>(outer.ownResults().entrySet())).as("case %d", c)
          .containsExactlyElementsOf(new ArrayList<>(mirror.entrySet()));
    }
  }

  private static NodeHandler handler(String kind, NodeProgram program) {
    return new NodeHandler() {
      @Override
      public NodeKindSpec spec() {
        return NodeKindSpec.of(kind, null, List.of());
      }

      @Override
      public NodeProgram compile(NodeConfig config) {
        return program;
      }
    };
  }

  @Test
  void aLoopPassThatReadsOneNameBuildsNoWholeScope() {
    NodeHandler increment = handler("test.increment", NodeProgram.inline(ctx -> {
      long count = ((Number) ((Map<?, ?>) ctx.scope().get("state")).get("count")).longValue();
      return NodeOutcome.of(null).withStatePatch(Map.of("count", count + 1));
    }));
    Loopflow engine = Loopflow.builder().handler(increment).build();
    Workflow wf = engine.parse("""
        name: lazy-scope
        input:
          count: {type: integer, default: 0}
        nodes:
          - name: counter
            type: while_loop
            max_iterations: 300
            condition: "state.count < 300"
            body:
              - name: increment
                type: test.increment
        """, "lazy.yaml");
    long before = NodeScope.WHOLE_MAPS_BUILT.get();
    RunResult r = engine.run(wf, Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.state()).containsEntry("count", 300L);
    assertThat(NodeScope.WHOLE_MAPS_BUILT.get() - before).isZero();
  }

  @Test
  void aTemplateThatNeedsTheWholeScopeStillSeesEveryNameInThePass() {
    Loopflow engine = Loopflow.builder().build();
    Workflow wf = engine.parse("""
        name: whole-scope
        input:
          count: {type: integer, default: 0}
        nodes:
          - name: counter
            type: while_loop
            max_iterations: 3
            condition: "state.count < 3"
            body:
              - name: first
                type: transform
                template: "{{ state.count + 1 }}"
              - name: second
                type: transform
                template: "{{ first.output }}/{{ loop.iteration }}/{{ input.count }}/{{ loop.prev.first.output }}"
                output: last
              - name: bump
                type: transform
                expression: "state.count + 1"
                output: count
        """, "whole.yaml");
    RunResult r = engine.run(wf, Map.of());
    assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.state()).containsEntry("last", "3/3/0/2");
  }
}
