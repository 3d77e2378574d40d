package dev.loopflow.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.internal.plan.ExecGraph;
import dev.loopflow.core.internal.plan.LoadedWorkflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.RunStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The coordinator of one level, on its own: a scripted {@link UnitExecutor} stands in for the units, so these tests
 * see exactly which units the coordinator runs, in what order, and what it makes of their outcomes.
 */
class GraphRunTest {
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final List<Event> events = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  /** Runs units by script: each unit id maps to its outcome (completed when absent), and every start is logged. */
  private static final class Script implements UnitExecutor {
    final List<String> started = new CopyOnWriteArrayList<>();
    final Map<String, Function<Frame, Outcome>> outcomes = new ConcurrentHashMap<>();

    @Override
    public Outcome execute(ExecGraph.Unit unit, Frame frame, ExecGraph level) {
      started.add(unit.id());
      Function<Frame, Outcome> f = outcomes.get(unit.id());
      if (f != null) {
        return f.apply(frame);
      }
      frame.complete(unit.id(), new java.util.LinkedHashMap<>(Map.of("status", "completed", "output", unit.id())),
          NodeStatus.COMPLETED);
      return Outcome.COMPLETED;
    }

    @Override
    public LevelResult runLevel(ExecGraph level, Frame frame, UnitExecutor.Level how) {
      throw new AssertionError("no nested levels in these tests");
    }
  }

  private record Level(GraphRun run, RunContext ctx) {}

  private Level level(String yaml, Script script) {
    Workflow wf = Loopflow.create().parse(yaml, "level.yaml");
    Budgets budgets = new Budgets(wf.budget());
    RunState state = new RunState(wf, Map.of(), budgets, Map.of());
    Redactor redactor = Redactor.of(List.of());
    EventBus bus = new EventBus("run_t", Clock.systemUTC(), List.of(events::add), 0, redactor);
    RunContext ctx = new RunContext("run_t", wf, RunOptions.builder().build(), RunStore.inMemory(),
        Clock.systemUTC(), executor, state, bus, budgets, Map.of(), RunContext.Replay.NONE, redactor);
    return new Level(new GraphRun(ctx, new Recorder(ctx), script, LoadedWorkflow.planOf(wf), state.top, UnitExecutor.Level.PLAIN), ctx);
  }

  @Test
  void unitsRunInDependencyOrderAndTheLevelCompletes() {
    Script script = new Script();
    LevelResult r = level("""
        name: chain
        nodes:
          - {id: a, type: transform, template: "1"}
          - {id: b, type: transform, template: "2", depends_on: [a]}
          - {id: c, type: transform, template: "3", depends_on: [b]}
        """, script).run().run();

    assertThat(r).isInstanceOf(LevelResult.Completed.class);
    assertThat(script.started).containsExactly("a", "b", "c");
  }

  @Test
  void aFailedUnitStopsTheLevelAndNothingDownstreamStarts() {
    Script script = new Script();
    RunError boom = new RunError(ErrorCode.NODE_FAILED, "boom", "a");
    script.outcomes.put("a", f -> new Outcome.Failed(boom, false));
    LevelResult r = level("""
        name: fail
        nodes:
          - {id: a, type: transform, template: "1"}
          - {id: b, type: transform, template: "2", depends_on: [a]}
        """, script).run().run();

    assertThat(r).isEqualTo(new LevelResult.Failed(boom));
    assertThat(script.started).containsExactly("a");
  }

  @Test
  void aForgivenFailureLetsDownstreamUnitsRun() {
    Script script = new Script();
    script.outcomes.put("a", f -> {
      f.mark("a", NodeStatus.FAILED, Map.of("status", "failed"));
      return new Outcome.Failed(new RunError(ErrorCode.NODE_FAILED, "boom", "a"), true);
    });
    LevelResult r = level("""
        name: forgiven
        nodes:
          - {id: a, type: transform, template: "1", allow_failure: true}
          - {id: b, type: transform, template: "2", depends_on: [a]}
        """, script).run().run();

    assertThat(r).isInstanceOf(LevelResult.Completed.class);
    assertThat(script.started).containsExactly("a", "b");
  }

  @Test
  void aPausedUnitEndsTheLevelPausedAndItsSuccessorsNeverStart() {
    Script script = new Script();
    Level level = level("""
        name: pause
        nodes:
          - {id: ask, type: transform, template: "1"}
          - {id: after, type: transform, template: "2", depends_on: [ask]}
        """, script);
    script.outcomes.put("ask", f -> {
      level.ctx().requestPause(new dev.loopflow.core.run.Waiting(dev.loopflow.core.run.Waiting.Kind.APPROVAL, "ask",
          "ask", null, null, "ok?", null, null));
      return Outcome.PAUSED;
    });

    assertThat(level.run().run()).isInstanceOf(LevelResult.Paused.class);
    assertThat(script.started).containsExactly("ask");
  }

  @Test
  void theStepLimitStopsTheLevelBeforeTheUnitThatWouldPassIt() {
    Script script = new Script();
    LevelResult r = level("""
        name: steps
        limits: {max_steps: 2}
        nodes:
          - {id: a, type: transform, template: "1"}
          - {id: b, type: transform, template: "2", depends_on: [a]}
          - {id: c, type: transform, template: "3", depends_on: [b]}
        """, script).run().run();

    assertThat(r).isInstanceOfSatisfying(LevelResult.Failed.class,
        f -> assertThat(f.error().errorCode()).isEqualTo(ErrorCode.MAX_STEPS_EXCEEDED));
    assertThat(script.started).containsExactly("a", "b");
  }

  @Test
  void aFalseEdgeConditionSkipsItsTargetAndTheSkipPropagates() {
    Script script = new Script();
    LevelResult r = level("""
        name: skip
        nodes:
          - {id: a, type: transform, template: "1"}
          - {id: b, type: transform, template: "2"}
          - {id: c, type: transform, template: "3"}
        edges:
          - {from: a, to: b, when: "{{ a.output == 'never' }}"}
          - {from: b, to: c}
        """, script).run().run();

    assertThat(r).isInstanceOf(LevelResult.Completed.class);
    assertThat(script.started).containsExactly("a");
    List<String> skipped = new ArrayList<>();
    events.forEach(e -> {
      if (e instanceof Event.NodeSkipped s) {
        skipped.add(s.node().nodeId());
      }
    });
    assertThat(skipped).containsExactly("b", "c");
  }

  @Test
  void independentUnitsAllRunWhenNothingOrdersThem() {
    Script script = new Script();
    LevelResult r = level("""
        name: fan
        nodes:
          - {id: a, type: transform, template: "1"}
          - {id: b, type: transform, template: "2"}
          - {id: join, type: transform, template: "3", depends_on: [a, b]}
        """, script).run().run();

    assertThat(r).isInstanceOf(LevelResult.Completed.class);
    assertThat(script.started).hasSize(3).endsWith("join").contains("a", "b");
  }
}
