package dev.loopflow.core.restart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.ResumeInput;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A node whose output asks for a restart is journaled, then its request is published on the run's command bus. An
 * attempt that ends between the two (a process killed there) left a journal with the node and no request.
 */
class RestartRequestAfterCrashTest {
  @Test
  void aResumedRunPublishesTheRequestOfARestoredNodeThatNeverGotToPublishIt_bugTheRunCompletedWithoutTheRestart()
      throws Exception {
    RunStore memory = RunStore.inMemory();
    AtomicBoolean refuseNext = new AtomicBoolean(true);
    // The first request cannot be taken, as if the process died right after journaling the node.
    RunStore store = (RunStore) Proxy.newProxyInstance(RunStore.class.getClassLoader(), new Class<?>[] {RunStore.class},
        (proxy, method, args) -> {
          if (method.getName().equals("appendCommand") && refuseNext.getAndSet(false)) {
            throw new IllegalStateException("the store went away");
          }
          try {
            return method.invoke(memory, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    Loopflow engine = Loopflow.builder().store(store).build();
    Workflow wf = engine.parse(Files.readString(Path.of("../examples/restart-graph.yaml")), "restart-graph.yaml");

    RunResult first = engine.run(wf, RunOptions.defaults());
    assertThat(first.status()).isEqualTo(RunStatus.FAILED);
    assertThat(memory.commands(first.runId())).isEmpty();

    RunResult resumed = engine.resume(wf, first.runId(), ResumeInput.none(), RunOptions.defaults(), false).await();

    assertThat(resumed.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(resumed.output()).isEqualTo("def add(a, b): return a + b");
    assertThat(resumed.pipeline()).containsEntry("iterations_executed", 2);
  }
}
