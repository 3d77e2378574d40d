package dev.loopflow.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.error.NodePosition.LoopFrame;
import dev.loopflow.core.error.NodePosition;
import java.lang.reflect.Array;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every event must read back from its JSON form unchanged, so a stored journal returns what was emitted. */
class EventsJsonTest {
  private static final String RUN = "run-42";
  private static final Instant AT = Instant.parse("2025-03-04T05:06:07.123456789Z");
  private static final NodePosition NESTED =
      new NodePosition(List.of(new LoopFrame("fix", 2), new LoopFrame("inner", 3)), "implement");
  private static final NodePosition TOP = NodePosition.top("plan");

  /** One instance of each permitted event, every field other than {@code costUsd} away from its default. */
  static List<Event> samples() {
    Map<String, Object> inputs = new LinkedHashMap<>();
    inputs.put("topic", "loops");
    inputs.put("count", 3);
    inputs.put("ratio", 0.75);
    inputs.put("strict", true);
    inputs.put("tags", List.of("a", 2, List.of("nested")));
    inputs.put("options", Map.of("depth", 2, "names", List.of("x", "y"), "deeper", Map.of("k", "v")));
    return List.of(
        new Event.RunStarted(RUN, 1, AT, "review", inputs),
        new Event.RunFinished(RUN, 2, AT, "failed", "NODE_FAILED", "implement broke", 1200, 340, 0.0125, 7),
        new Event.NodeStarted(RUN, 3, AT, NESTED, "llm", 2),
        new Event.NodeCompleted(RUN, 4, AT, NESTED, "llm", 1500, "done: ok", 100, 20, null, 8),
        new Event.NodeFailed(RUN, 5, AT, TOP, "shell", 250, "EXIT_CODE", "exit 2", true),
        new Event.NodeSkipped(RUN, 6, AT, NESTED, "transform", "branch not taken"),
        new Event.NodeCancelled(RUN, 7, AT, TOP, "script"),
        new Event.NodeRetrying(RUN, 8, AT, NESTED, "llm", 3, "rate limited"),
        new Event.RouterSelected(RUN, 9, AT, TOP, "fix"),
        new Event.LlmCalled(RUN, 10, AT, NESTED, "ollama", "qwen3:8b", 900, 120, 0.0031, true, 2, 4321, "qwen3", "stop",
            700L, 150L),
        new Event.LoopStarted(RUN, 11, AT, TOP, "while_loop", 5),
        new Event.LoopIteration(RUN, 12, AT, NESTED, "iterator", 3, 2, 5, 4, "item three", false),
        new Event.LoopIterate(RUN, 13, AT, NESTED, "test", "implement", 2, 4),
        new Event.LoopCompleted(RUN, 14, AT, TOP, "while_loop", 4, "condition_false", 5000, 800, null, 9),
        new Event.RunPaused(RUN, 15, AT, NESTED, "approve the plan?"),
        new Event.RunResumed(RUN, 16, AT, "review", "paused", "fix[2].ask",
            Map.of("decision", "rejected", "comment", "not yet")),
        new Event.ListenerFailed(RUN, 17, AT, "listener 2 (com.example.Dashboard)", "node.completed",
            "IllegalStateException: socket closed"),
        new Event.NodeStep(RUN, 18, AT, NESTED, "e1", Map.of("kind", "model", "text", "hi")),
        new Event.NodeStreaming(RUN, 19, AT, TOP, "draft", 2, "Once upon"),
        new Event.RestartRequested(RUN, 20, AT, 3, "build", "discover", "missing events",
            Map.of("filter", "purchase%"), 2, 1700000000000L, "npath.restart"),
        new Event.RestartAccepted(RUN, 21, AT, 3, "build", "discover", "missing events", 3, "npath.restart"),
        new Event.RestartRejected(RUN, 22, AT, 4, "external", "build", "again", "restart_cooldown_not_elapsed",
            "cooldown not elapsed (4s remaining)", 3, "workflow.restart"),
        new Event.StageValidationRetry(RUN, 23, AT, TOP, 1, "run-1-retry1", "invalid JSON"));
  }

  @ParameterizedTest
  @MethodSource("samples")
  void everyEventReadsBackFromItsJsonUnchanged(Event e) {
    assertThat(Events.fromJson(Events.toJson(e))).isEqualTo(e);
  }

  @ParameterizedTest
  @MethodSource("samples")
  void everyEventReadsBackFromItsMapUnchanged(Event e) {
    assertThat(Events.fromMap(Events.toMap(e))).isEqualTo(e);
  }

  @Test
  void everyPermittedEventHasARoundTripSample() {
    Set<Class<?>> sampled = samples().stream().map(Object::getClass).collect(Collectors.toSet());
    assertThat(sampled).containsExactlyInAnyOrder(Event.class.getPermittedSubclasses());
  }

  /** The journal writes event keys without escaping them; that is right only while every key is an identifier. */
  /** The per-pass events in every shape: nested and top-level, null and non-null previews, costs and results. */
  static List<Event> perPassShapes() {
    List<Event> out = new java.util.ArrayList<>();
    for (NodePosition pos : List.of(TOP, NESTED)) {
      for (Instant at : java.util.Arrays.asList(AT, null, Instant.EPOCH)) {
        out.add(new Event.NodeStarted(RUN, 7, at, pos, "lua", 1));
        out.add(new Event.NodeStarted(null, Long.MAX_VALUE, at, pos, null, Integer.MIN_VALUE));
        for (Double cost : java.util.Arrays.asList(null, 0.0, -0.0, 0.125, Double.NaN)) {
          out.add(new Event.NodeCompleted(RUN, 8, at, pos, "lua", 3, "{\"count\":1}", 10, 20, cost, 11));
          out.add(new Event.NodeCompleted(RUN, -1, at, pos, null, Long.MIN_VALUE, null, 0, 0, cost, 0));
        }
        for (Boolean cond : java.util.Arrays.asList(null, true, false)) {
          out.add(new Event.LoopIteration(RUN, 9, at, pos, "while_loop", 2, 1, 100, 100, "\u0000\"x\"", cond));
          out.add(new Event.LoopIteration(RUN, 9, at, pos, null, 0, -1, 0, 0, null, cond));
        }
      }
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource("perPassShapes")
  void thePerPassEventsWrittenByHandGiveWhatTheirRecordComponentsGive(Event e) throws Exception {
    List<Object> direct = new java.util.ArrayList<>();
    Events.fields(e, (k, v) -> {
      direct.add(k);
      direct.add(v);
    });
    List<Object> generic = new java.util.ArrayList<>(List.of("type", e.type()));
    Events.components(e, (k, v) -> {
      generic.add(k);
      generic.add(v);
    });
    assertThat(direct).isEqualTo(generic);
    for (int i = 1; i < direct.size(); i += 2) {
      Object d = direct.get(i);
      assertThat(d == null ? null : d.getClass()).as("type of %s", direct.get(i - 1))
          .isEqualTo(generic.get(i) == null ? null : generic.get(i).getClass());
    }
  }

  @Test
  void everyKeyOfEveryEventIsAnIdentifierThatNeedsNoEscaping() throws Exception {
    for (Event e : samples()) {
      java.util.List<String> keys = new java.util.ArrayList<>();
      Events.fields(e, (key, value) -> keys.add(key));
      assertThat(keys).as(e.type()).isNotEmpty().allMatch(k -> k.matches("[A-Za-z_][A-Za-z0-9_]*"));
    }
  }

  @Test
  void samplesSetEveryFieldSoTheRoundTripCanSeeIt() throws ReflectiveOperationException {
    for (Event e : samples()) {
      for (RecordComponent c : e.getClass().getRecordComponents()) {
        if (!c.getName().equals("costUsd")) {
          Object unset = Array.get(Array.newInstance(c.getType(), 1), 0);
          assertThat(c.getAccessor().invoke(e)).as("%s.%s", e.type(), c.getName()).isNotEqualTo(unset);
        }
      }
    }
    assertThat(samples()).extracting(Events::toMap)
        .anySatisfy(m -> assertThat(m).containsEntry("cost_usd", null))
        .anySatisfy(m -> assertThat(m.get("cost_usd")).isNotNull());
  }

  @Test
  void unknownTypeIsRejectedByName() {
    assertThatThrownBy(() -> Events.fromJson("{\"type\":\"node.exploded\",\"run_id\":\"r\",\"seq\":1}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node.exploded");
  }

  @Test
  void keysFromANewerWriterAreIgnored() {
    Event e = new Event.NodeStarted(RUN, 3, AT, NESTED, "llm", 2);
    Map<String, Object> m = new LinkedHashMap<>(Events.toMap(e));
    m.put("trace_id", "abc");
    m.put("extra", Map.of("nested", List.of(1, 2)));
    String json = Events.toJson(e).replaceFirst("}$", ",\"trace_id\":\"abc\",\"extra\":{\"n\":[1,2]}}");

    assertThat(Events.fromMap(m)).isEqualTo(e);
    assertThat(Events.fromJson(json)).isEqualTo(e);
  }

  @Test
  void topLevelPositionIsWrittenWithoutLoopsAndReadBackWithNone() {
    Event e = new Event.RouterSelected(RUN, 9, AT, TOP, "fix");
    assertThat(Events.toMap(e)).doesNotContainKey("loops").containsEntry("node", "plan");
    assertThat(((Event.RouterSelected) Events.fromJson(Events.toJson(e))).node()).isEqualTo(TOP);
  }

  @Test
  void absentPrimitivesReadAsZeroAndAbsentObjectsAsNull() {
    assertThat(Events.fromJson("{\"type\":\"run.finished\",\"run_id\":\"r\"}"))
        .isEqualTo(new Event.RunFinished("r", 0, null, null, null, null, 0, 0, null, 0));
  }

  @Test
  void fieldOfTheWrongJsonTypeIsRejectedByName() {
    assertThatThrownBy(() -> Events.fromJson("{\"type\":\"run.finished\",\"input_tokens\":\"many\"}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("input_tokens");
  }

  @ParameterizedTest
  @MethodSource("samples")
  void everyEventSpellsItsRunIdRunId_bugLoopIterateWroteRunId(Event e) {
    Map<String, Object> m = Events.toMap(e);
    assertThat(m).containsEntry("run_id", RUN).doesNotContainKey("runId");
  }

  @Test
  void aLoopIterateJournaledWithTheOldRunIdKeyStillReadsBack() {
    String json = "{\"type\":\"loop.iterate\",\"runId\":\"r1\",\"seq\":3,\"node\":\"a\",\"edgeFrom\":\"a\"}";
    assertThat(Events.fromJson(json)).isInstanceOfSatisfying(Event.LoopIterate.class,
        e -> assertThat(e.runId()).isEqualTo("r1"));
  }

  @Test
  void loopIterateIsReadFromItsCamelCaseKeys() {
    String json = "{\"type\":\"loop.iterate\",\"edgeFrom\":\"a\",\"edge_from\":\"b\",\"maxIterations\":3}";
    assertThat(Events.fromJson(json)).isInstanceOfSatisfying(Event.LoopIterate.class, e -> {
      assertThat(e.edgeFrom()).isEqualTo("a");
      assertThat(e.maxIterations()).isEqualTo(3);
    });
  }
}
