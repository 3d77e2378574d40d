package dev.loopflow.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.RunCommand;
import dev.loopflow.core.store.RunStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class RunCommandsTest {
  private static final RunCommand REQUEST = new RunCommand("r", 1, "restart",
      Map.of("target_stage_id", "a"), Instant.parse("2026-11-24T10:00:00Z"), null, null);

  /**
   * The run polls for commands after every node while its lease thread polls a few times a second. The lease
   * thread's poll took the new version token, then read the pending commands; an engine poll in between saw the token
   * unchanged and returned at once, its drain came back empty, and a request sent while the run's last node ran was
   * answered "the run completed before the request was decided" (a loopflow signal test failed now and then).
   */
  @Test
  @Timeout(20)
  void aPollReturnsOnlyOnceTheCommandsAConcurrentPollIsReadingAreQueued_bugEmptyDrainDuringTheLeasePoll()
      throws Exception {
    CountDownLatch reading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    RunStore inner = RunStore.inMemory();
    RunStore store = (RunStore) Proxy.newProxyInstance(RunStore.class.getClassLoader(), new Class<?>[] {RunStore.class},
        (proxy, method, args) -> {
          switch (method.getName()) {
            case "commandsVersion":
              return 7L;
            case "pendingCommands":
              reading.countDown();
              release.await();
              return List.of(REQUEST);
            default:
              try {
                return method.invoke(inner, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
          }
        });
    RunCommands commands = new RunCommands(store, "r", Clock.systemUTC(), Redactor.of(List.of()));
    Thread lease = new Thread(commands::poll, "lease");
    lease.start();
    assertThat(reading.await(10, TimeUnit.SECONDS)).isTrue();

    AtomicReference<List<RunCommand>> drained = new AtomicReference<>();
    Thread engine = new Thread(() -> {
      commands.poll();
      drained.set(commands.drain());
    }, "engine");
    engine.start();
    // The engine's poll must wait for the lease thread's read instead of returning with nothing queued.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (engine.isAlive() && engine.getState() != Thread.State.BLOCKED && engine.getState() != Thread.State.WAITING
        && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    release.countDown();
    engine.join();
    lease.join();
    assertThat(drained.get()).extracting(RunCommand::seq).containsExactly(1L);
  }
}
