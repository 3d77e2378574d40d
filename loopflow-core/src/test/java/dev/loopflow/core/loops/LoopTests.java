package dev.loopflow.core.loops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Shared helpers for the loop tests: load, run with an event recorder, read results and events, and the rows of the
 * table-driven tests ({@link #row}, {@link Expect}, {@link #rejected}).
 */
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

    /** The output previews of every completed execution of the node with this id, in completion order. */
    List<String> outputsOf(String nodeId) {
      return events(Event.NodeCompleted.class).stream().filter(e -> e.node().nodeId().equals(nodeId))
          .map(Event.NodeCompleted::outputPreview).toList();
    }

    /** The run's state with every whole number as a long, so inputs (ints) and script results (longs) compare. */
    Map<String, Object> state() {
      return normalized(result.state());
    }
  }

  /** A workflow kept as a file under {@code src/test/resources/loops/}. */
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

  static Map<String, Object> normalized(Map<String, Object> values) {
    Map<String, Object> out = new LinkedHashMap<>();
    values.forEach((k, v) -> out.put(k, v instanceof Number n && !(v instanceof Double) ? (Object) n.longValue() : v));
    return out;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Table rows

  /** A row of a table of runs: what it shows, the workflow, its inputs and what the run must look like. */
  static Arguments row(String behaviour, String yaml, Map<String, ?> inputs, Expect expect) {
    return Arguments.of(behaviour, yaml, inputs, expect);
  }

  /** A row of a table of workflows that must not load: what it shows, the workflow and its problems. */
  static Arguments rejected(String behaviour, String yaml, Consumer<List<String>> problems) {
    return Arguments.of(behaviour, yaml, problems);
  }

  /**
   * Runs a row's checks; a failure names the row's behaviour first, since test reports number parameterized rows
   * instead of naming them.
   */
  static void named(String behaviour, Runnable checks) {
    try {
      checks.run();
    } catch (AssertionError e) {
      AssertionError named = new AssertionError("[" + behaviour + "] " + e.getMessage(), e);
      named.setStackTrace(e.getStackTrace());
      throw named;
    }
  }

  /** The problems are exactly these, in this order. */
  static Consumer<List<String>> exactly(String... problems) {
    return p -> assertThat(p).containsExactly(problems);
  }

  /** The problems include these (others may be reported too). */
  static Consumer<List<String>> including(String... problems) {
    return p -> assertThat(p).contains(problems);
  }

  /** There is one problem: it starts with {@code prefix} (its location) and names every fragment. */
  static Consumer<List<String>> onlyOne(String prefix, String... fragments) {
    return p -> assertThat(p).singleElement().asString().startsWith(prefix).contains(fragments);
  }

  /** Some problem starts with {@code prefix} and names every fragment. */
  static Consumer<List<String>> someOne(String prefix, String... fragments) {
    return p -> assertThat(p).anySatisfy(one -> assertThat(one).startsWith(prefix).contains(fragments));
  }

  /** What a run must look like: AssertJ checks, applied in the order they were added. */
  static final class Expect {
    private final List<Consumer<Run>> checks = new ArrayList<>();

    private Expect() {}

    /** The run completed without an error. */
    static Expect completed() {
      return new Expect().check(r -> {
        assertThat(r.result().error()).isNull();
        assertThat(r.result().status()).isEqualTo(RunStatus.COMPLETED);
      });
    }

    /** The run failed, whatever the code. */
    static Expect failed() {
      return new Expect().check(r -> assertThat(r.result().status()).isEqualTo(RunStatus.FAILED));
    }

    /** The run failed with this error code. */
    static Expect failed(String code) {
      return failed().check(r -> assertThat(r.result().error().code()).isEqualTo(code));
    }

    Expect check(Consumer<Run> check) {
      checks.add(check);
      return this;
    }

    /** The error names this node (its id). */
    Expect errorNode(String node) {
      return check(r -> assertThat(r.result().error().node()).isEqualTo(node));
    }

    /** The error names this position, e.g. {@code outer[2].inner}. */
    Expect errorAt(String path) {
      return check(r -> assertThat(r.result().error().path()).isEqualTo(path));
    }

    Expect errorSays(String... fragments) {
      return check(r -> assertThat(r.result().error().message()).contains(fragments));
    }

    Expect errorDetails(String key, Object value) {
      return check(r -> assertThat(r.result().error().details()).containsEntry(key, value));
    }

    /** The result of node {@code id} holds each key/value pair given, e.g. {@code node("l", "count", 3)}. */
    Expect node(String id, Object... keyValues) {
      return check(r -> assertThat(r.node(id)).containsAllEntriesOf(pairs(keyValues)));
    }

    /** The result of node {@code id}, with whole numbers as longs, holds each key/value pair given. */
    Expect nodeNormalized(String id, Object... keyValues) {
      return check(r -> assertThat(normalized(r.node(id))).containsAllEntriesOf(pairs(keyValues)));
    }

    /** Node {@code id} did not complete (it failed, was skipped or never ran). */
    Expect notCompleted(String id) {
      return check(r -> assertThat(r.node(id).get("status")).as(id).isNotEqualTo("completed"));
    }

    /** The loop result a loop edge's source node carries ({@code reviewer.loop}) holds these pairs. */
    Expect loopOf(String sourceNode, Object... keyValues) {
      return check(r -> assertThat(r.node(sourceNode).get("loop")).as("%s.loop", sourceNode)
          .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
          .containsAllEntriesOf(pairs(keyValues)));
    }

    Expect output(Object output) {
      return check(r -> assertThat(r.result().output()).isEqualTo(output));
    }

    /** The run's state, numbers as longs, holds each key/value pair given. */
    Expect state(Object... keyValues) {
      return check(r -> assertThat(r.state()).containsAllEntriesOf(pairs(keyValues)));
    }

    /** Exactly these positions started, in this order. */
    Expect started(String... paths) {
      return check(r -> assertThat(r.started()).containsExactly(paths));
    }

    /** These positions started in this order, perhaps with others between. */
    Expect startedInOrder(String... paths) {
      return check(r -> assertThat(r.started()).containsSubsequence(paths));
    }

    Expect startedIncluding(String... paths) {
      return check(r -> assertThat(r.started()).contains(paths));
    }

    Expect notStarted(String... paths) {
      return check(r -> assertThat(r.started()).doesNotContain(paths));
    }

    Expect startedCount(int n) {
      return check(r -> assertThat(r.started()).hasSize(n));
    }

    /** The node with this id started {@code n} times, at any positions. */
    Expect starts(String nodeId, long n) {
      return check(r -> assertThat(r.starts(nodeId)).as("starts of %s", nodeId).isEqualTo(n));
    }

    /** The completed executions of the node with this id had these output previews, in order. */
    Expect outputsOf(String nodeId, String... previews) {
      return check(r -> assertThat(r.outputsOf(nodeId)).containsExactly(previews));
    }

    /** Every loop.completed event, as {@code path:iterations:exit_reason}, in order. */
    Expect loopsCompleted(String... completions) {
      return check(r -> assertThat(r.events(Event.LoopCompleted.class))
          .extracting(e -> e.node().path() + ":" + e.iterationsRun() + ":" + e.exitReason())
          .containsExactly(completions));
    }

    /** The iteration numbers of the loop.iterate events (loop-backs of loop edges), in order. */
    Expect loopBacks(Integer... iterations) {
      return check(r -> assertThat(r.events(Event.LoopIterate.class)).extracting(Event.LoopIterate::iteration)
          .containsExactly(iterations));
    }

    /** Applies every check to the run of the row {@code behaviour}. */
    void verify(String behaviour, Run run) {
      named(behaviour, () -> checks.forEach(c -> c.accept(run)));
    }

    private static Map<String, Object> pairs(Object... keyValues) {
      if (keyValues.length % 2 != 0) {
        throw new IllegalArgumentException("key/value pairs expected, got " + keyValues.length + " values");
      }
      Map<String, Object> m = new LinkedHashMap<>();
      for (int i = 0; i < keyValues.length; i += 2) {
        m.put((String) keyValues[i], keyValues[i + 1]);
      }
      return m;
    }
  }
}
