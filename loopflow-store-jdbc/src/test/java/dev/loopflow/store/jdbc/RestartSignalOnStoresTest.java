package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RestartResponse;
import dev.loopflow.core.run.RunHandle;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.store.RunStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A restart request sent through a second store instance (as another process would: its own connections) reaches
 * the run executing on the first, on SQLite (noticed through the data version) and on PostgreSQL (through
 * LISTEN/NOTIFY), is decided there, and its answer is read back through the second instance.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RestartSignalOnStoresTest {
  @TempDir
  Path dir;

  /** A node that blocks its first execution until released, so the test can signal while the run is running. */
  private static final class Gate implements NodeHandler {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger runs = new AtomicInteger();

    @Override
    public NodeKindSpec spec() {
      return NodeKindSpec.of("gate", null, List.of());
    }

    @Override
    public NodeProgram compile(NodeConfig c) {
      return ctx -> {
        if (runs.incrementAndGet() == 1) {
          entered.countDown();
          release.await();
        }
        return NodeOutcome.of("gate " + runs.get());
      };
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sqlite", "postgresql"})
  void aRestartSentThroughAnotherStoreInstanceReachesTheRunningRun(String kind) throws Exception {
    String url;
    String database = null;
    if (kind.equals("sqlite")) {
      url = "sqlite:" + dir.resolve("runs.db");
    } else {
      database = PostgresDatabases.create("signal", "");
      url = PostgresDatabases.url(database);
    }
    Gate gate = new Gate();
    try (RunStore mine = JdbcStores.open(url); RunStore theirs = JdbcStores.open(url)) {
      Loopflow engine = Loopflow.builder().handler(gate).store(mine).build();
      Workflow wf = engine.parse("""
          name: signalled
          restart_policy: {enabled: true, max_iterations: 3}
          nodes:
            - {id: a, type: transform, template: "a in iteration {{ loop.iteration }}"}
            - {id: b, type: gate, depends_on: [a]}
          output: "{{ a.output }} / {{ b.output }}"
          """, "signalled.yaml");
      RunHandle h = engine.start(wf, RunOptions.defaults());
      assertThat(gate.entered.await(30, TimeUnit.SECONDS)).isTrue();

      Loopflow other = Loopflow.builder().store(theirs).build();
      long seq = other.requestRestart(h.runId(), new RestartRequest(null, "a", "from elsewhere", Map.of(), 0, 0));
      // The run decides it when b completes; by then it must have seen the request through its own store.
      gate.release.countDown();
      RunResult r = h.await();

      assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
      assertThat(r.output()).isEqualTo("a in iteration 2 / gate 2");
      Optional<RestartResponse> answer = Optional.empty();
      for (int i = 0; i < 100 && answer.isEmpty(); i++) {
        answer = other.restartResponse(h.runId(), seq);
        Thread.sleep(answer.isEmpty() ? 20 : 0);
      }
      assertThat(answer).hasValueSatisfying(a -> {
        assertThat(a.success()).isTrue();
        assertThat(a.iteration()).isEqualTo(2);
      });
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> requests = (List<Map<String, Object>>) r.pipeline().get("restart_requests");
      assertThat(requests).singleElement().satisfies(q -> assertThat(q).containsEntry("requester_stage_id",
          "external").containsEntry("success", true));
      // What the run printed is what a reader of the store gets later.
      assertThat(other.inspect(h.runId()).orElseThrow().result().pipeline()).isEqualTo(r.pipeline());
      assertThatThrownBy(() -> other.signalRestart(h.runId(),
          new RestartRequest(null, "a", "too late", Map.of(), 0, 0), Duration.ZERO))
          .hasMessageContaining("has ended (completed)");
    } finally {
      if (database != null) {
        PostgresDatabases.drop(database);
      }
    }
  }
}
