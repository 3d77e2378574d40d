package dev.loopflow.core.loops;

import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.WorkflowInvalidException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Problem;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** Shared helpers for the loop tests: load, run with an event recorder, and read results and events. */
final class LoopTests {
  private LoopTests() {}

  /** A run's result together with every event it emitted, in order. */
  record Run(RunResult result, List<Event> events) {
    Map<String, Object> node(String id) {
      return result.nodes().get(id);
    }

    <E extends Event> List<E> events(Class<E> type) {
      return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** Position paths (e.g. {@code outer[2].inc}) of every started node, in start order. */
    List<String> started() {
      return events(Event.NodeStarted.class).stream().map(e -> e.node().path()).toList();
    }

    /** How many times a node with this id started, at any position. */
    long starts(String nodeId) {
      return events(Event.NodeStarted.class).stream().filter(e -> e.node().nodeId().equals(nodeId)).count();
    }
  }

  static String resource(String name) {
    try (var in = LoopTests.class.getResourceAsStream("/loops/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource /loops/" + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Run run(Loopflow engine, String yaml, Map<String, ?> inputs) {
    Workflow wf = engine.parse(yaml, "t.yaml");
    return run(engine, wf, inputs);
  }

  static Run run(Loopflow engine, Workflow wf, Map<String, ?> inputs) {
    List<Event> events = Collections.synchronizedList(new ArrayList<>());
    RunResult r = engine.run(wf, RunOptions.builder().inputs(inputs).listener(events::add).build());
    return new Run(r, List.copyOf(events));
  }

  /** Every problem of a file that must not load, each as {@code file:line:col: path: message}. */
  static List<String> problems(Loopflow engine, String yaml) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> engine.parse(yaml, "t.yaml"));
    if (e == null) {
      throw new AssertionError("expected the workflow to be rejected, but it loaded:\n" + yaml);
    }
    return e.problems().stream().map(Problem::format).toList();
  }
}
