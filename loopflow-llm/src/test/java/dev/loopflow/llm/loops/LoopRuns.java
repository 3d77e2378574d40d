package dev.loopflow.llm.loops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.testkit.FakeOpenAiServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Runs loop workflows on one engine (its in-memory store keeps the journal a resume needs) and records every
 * event of every run and resume, so tests can look at body positions, LLM calls and loop events. The rows of the
 * table-driven tests are built here too ({@link #row}, {@link Expect}).
 */
final class LoopRuns {
  final Loopflow engine = Loopflow.create();
  final List<Event> events = new CopyOnWriteArrayList<>();
  private Path workingDirectory;
  private FakeOpenAiServer server;
  private final Map<String, Object> inputs = new HashMap<>();

  /** Shell nodes (and until commands) run in {@code dir}. */
  LoopRuns in(Path dir) {
    this.workingDirectory = dir;
    return this;
  }

  /** LLM nodes on the openai provider talk to {@code s} instead of being mocked. */
  LoopRuns against(FakeOpenAiServer s) {
    this.server = s;
    return this;
  }

  LoopRuns input(String name, Object value) {
    inputs.put(name, value);
    return this;
  }

  LoopRuns inputs(Map<String, ?> values) {
    inputs.putAll(values);
    return this;
  }

  /** The directory shell nodes run in; null unless set with {@link #in}. */
  Path dir() {
    return workingDirectory;
  }

  /** The fake provider the LLM nodes talk to; null when they are mocked. */
  FakeOpenAiServer server() {
    return server;
  }

  Workflow parse(String yaml) {
    return engine.parse(yaml, "t.yaml");
  }

  RunOptions options() {
    return options(events::add);
  }

  RunOptions options(Consumer<Event> listener) {
    RunOptions.Builder b = RunOptions.builder().inputs(inputs).listener(listener::accept);
    if (server == null) {
      b.option("llm.mock", true);
    } else {
      Map<String, String> env = new HashMap<>();
      env.put("OPENAI_BASE_URL", server.baseUrl());
      env.put("OPENAI_API_KEY", "sk-test");
      env.put("PATH", System.getenv("PATH"));
      b.environment(env);
    }
    if (workingDirectory != null) {
      b.workingDirectory(workingDirectory);
    }
    return b.build();
  }

  RunResult run(String yaml) {
    return engine.run(parse(yaml), options());
  }

  RunResult run(Workflow wf) {
    return engine.run(wf, options());
  }

  RunResult resume(Workflow wf, RunResult paused, String answer) {
    RunHandle h = engine.resume(wf, paused.runId(), answer, options());
    try {
      return h.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for the resumed run", e);
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Looking at what happened

  <T extends Event> List<T> all(Class<T> type) {
    return events.stream().filter(type::isInstance).map(type::cast).toList();
  }

  /** Position paths of completed node executions, in event order, e.g. {@code fix[2].implement}. */
  List<String> completed() {
    return all(Event.NodeCompleted.class).stream().map(e -> e.node().path()).toList();
  }

  /** Position paths of started node executions, in event order. */
  List<String> started() {
    return all(Event.NodeStarted.class).stream().map(e -> e.node().path()).toList();
  }

  /** Position paths of the nodes that made an LLM call, one entry per call. */
  List<String> llmCalls() {
    return all(Event.LlmCalled.class).stream().map(e -> e.node().path()).toList();
  }

  /** The output preview of the completed execution at {@code path}. */
  String preview(String path) {
    return all(Event.NodeCompleted.class).stream().filter(e -> e.node().path().equals(path))
        .map(Event.NodeCompleted::outputPreview).reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no completed execution at " + path + "; completed: " + completed()));
  }

  void clearEvents() {
    events.clear();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> usageOf(RunResult r, String node) {
    return (Map<String, Object>) r.nodes().get(node).get("usage");
  }

  /** A workflow kept as a file under {@code src/test/resources/loops/}. */
  static String fixture(String name) {
    try (var in = LoopRuns.class.getResourceAsStream("/loops/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource /loops/" + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Table rows

  /** A row of a table of runs: what it shows, the workflow, its inputs and what the run must look like. */
  static Arguments row(String behaviour, String yaml, Map<String, ?> inputs, Expect expect) {
    return Arguments.of(behaviour, yaml, inputs, expect);
  }

  static Arguments row(String behaviour, String yaml, Expect expect) {
    return row(behaviour, yaml, Map.of(), expect);
  }

  /**
   * Runs the workflow of the row {@code behaviour} with its inputs on this runner and checks what it expects; a
   * failure names the behaviour first, since test reports number parameterized rows instead of naming them.
   */
  void verify(String behaviour, String yaml, Map<String, ?> rowInputs, Expect expect) {
    inputs(rowInputs);
    RunResult result = run(yaml);
    try {
      expect.verify(this, result);
    } catch (AssertionError e) {
      AssertionError named = new AssertionError("[" + behaviour + "] " + e.getMessage(), e);
      named.setStackTrace(e.getStackTrace());
      throw named;
    }
  }

  /** What a run, and what the runner recorded of it, must look like: AssertJ checks applied in order. */
  static final class Expect {
    private final List<BiConsumer<LoopRuns, RunResult>> checks = new ArrayList<>();

    private Expect() {}

    static Expect completed() {
      return status(RunStatus.COMPLETED);
    }

    static Expect cancelled() {
      return status(RunStatus.CANCELLED);
    }

    /** The run failed with this error code. */
    static Expect failed(String code) {
      return status(RunStatus.FAILED).check((runs, r) -> assertThat(r.error().code()).isEqualTo(code));
    }

    private static Expect status(RunStatus status) {
      return new Expect().check((runs, r) -> assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(status));
    }

    Expect check(BiConsumer<LoopRuns, RunResult> check) {
      checks.add(check);
      return this;
    }

    Expect errorNode(String node) {
      return check((runs, r) -> assertThat(r.error().node()).isEqualTo(node));
    }

    /** The error names this position, e.g. {@code g[3].a}. */
    Expect errorAt(String path) {
      return check((runs, r) -> assertThat(r.error().path()).isEqualTo(path));
    }

    Expect errorSays(String... fragments) {
      return check((runs, r) -> assertThat(r.error().message()).contains(fragments));
    }

    /** The result of node {@code id} holds each key/value pair given, e.g. {@code node("g", "count", 3)}. */
    Expect node(String id, Object... keyValues) {
      return check((runs, r) -> assertThat(r.nodes().get(id)).as(id).containsAllEntriesOf(pairs(keyValues)));
    }

    /** The loop's result per pass, in pass order. */
    Expect iterations(String loopId, Object... perPass) {
      return check((runs, r) -> assertThat(r.nodes().get(loopId).get("iterations")).isEqualTo(List.of(perPass)));
    }

    Expect output(Object output) {
      return check((runs, r) -> assertThat(r.output()).isEqualTo(output));
    }

    /** The usage a node reports (a loop's adds up its passes) holds each key/value pair given. */
    Expect usage(String id, Object... keyValues) {
      return check((runs, r) -> assertThat(usageOf(r, id)).containsAllEntriesOf(pairs(keyValues)));
    }

    /** Exactly these positions made an LLM call, one entry per call, in order. */
    Expect llmCalls(String... paths) {
      return check((runs, r) -> assertThat(runs.llmCalls()).containsExactly(paths));
    }

    Expect llmCallCount(int n) {
      return check((runs, r) -> assertThat(runs.llmCalls()).hasSize(n));
    }

    /** The fake provider received exactly {@code n} requests. */
    Expect requests(int n) {
      return check((runs, r) -> assertThat(runs.server().requestCount()).isEqualTo(n));
    }

    /** These positions completed in this order, perhaps with others between. */
    Expect completedInOrder(String... paths) {
      return check((runs, r) -> assertThat(runs.completed()).containsSubsequence(paths));
    }

    Expect notCompleted(String... paths) {
      return check((runs, r) -> assertThat(runs.completed()).doesNotContain(paths));
    }

    Expect startedIncluding(String... paths) {
      return check((runs, r) -> assertThat(runs.started()).contains(paths));
    }

    Expect notStarted(String... paths) {
      return check((runs, r) -> assertThat(runs.started()).doesNotContain(paths));
    }

    /** Every loop.completed event, as {@code path:exit_reason}, in order. */
    Expect loopsCompleted(String... completions) {
      return check((runs, r) -> assertThat(runs.all(Event.LoopCompleted.class))
          .extracting(e -> e.node().path() + ":" + e.exitReason()).containsExactly(completions));
    }

    /** The file {@code name} in the run's directory holds exactly these lines. */
    Expect fileLines(String name, String... lines) {
      return check((runs, r) -> {
        Path file = runs.dir().resolve(name);
        assertThat(file).exists();
        try {
          assertThat(Files.readAllLines(file)).as(name).containsExactly(lines);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }

    /** No file in the run's directory has a name starting with {@code prefix}. */
    Expect noFile(String prefix) {
      return check((runs, r) -> {
        try (var files = Files.list(runs.dir())) {
          assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(prefix));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }

    void verify(LoopRuns runs, RunResult result) {
      checks.forEach(c -> c.accept(runs, result));
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
