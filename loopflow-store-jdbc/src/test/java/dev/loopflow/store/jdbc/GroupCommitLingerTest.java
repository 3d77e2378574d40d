package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Writes already durable elsewhere wait a moment for company; a write someone waits for never does. */
class GroupCommitLingerTest {
  private final List<Integer> batches = new CopyOnWriteArrayList<>();

  private GroupCommit writer(long lingerNanos) {
    return new GroupCommit("test-writer", batch -> {
      batches.add(batch.size());
      for (GroupCommit.Request r : batch) {
        r.finish(null);
      }
    }, lingerNanos);
  }

  private static RuntimeException closed() {
    return new IllegalStateException("closed");
  }

  @Test
  @Timeout(120) // a hang guard only
  void submittedWritesArrivingOneByOneShareTransactions() throws Exception {
    // A linger far longer than the whole loop (the waited write at the end ends it), so that a loaded machine pausing
    // this thread, however often, still groups: the count of transactions does not depend on the machine's speed.
    GroupCommit w = writer(TimeUnit.SECONDS.toNanos(20));
    AtomicInteger done = new AtomicInteger();
    for (int i = 0; i < 100; i++) {
      w.submit("r", c -> {}, failure -> done.incrementAndGet(), GroupCommitLingerTest::closed);
      long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(100);
      while (System.nanoTime() < until) {
        Thread.onSpinWait();
      }
    }
    w.write(null, c -> {}, GroupCommitLingerTest::closed);
    w.stop();
    assertThat(done.get()).isEqualTo(100);
    // One at a time, each submit would find the writer idle and be a transaction of its own.
    assertThat(batches.size()).as("transactions for %s", batches).isLessThan(30);
  }

  @Test
  @Timeout(30) // a hang guard only: the write returns long before the 60 s linger
  void aWaitedWriteEndsTheLingerAtOnceAndCommitsWithTheSubmittedOnes() {
    GroupCommit w = writer(TimeUnit.SECONDS.toNanos(60));
    AtomicInteger done = new AtomicInteger();
    for (int i = 0; i < 3; i++) {
      w.submit("r", c -> {}, failure -> done.incrementAndGet(), GroupCommitLingerTest::closed);
    }
    w.write("r", c -> {}, GroupCommitLingerTest::closed); // returns long before the 60 s linger
    assertThat(done.get()).isEqualTo(3);
    assertThat(batches).containsExactly(4);
    w.stop();
  }

  @Test
  @Timeout(30) // a hang guard only: stopping returns long before the 60 s linger
  void stoppingEndsTheLingerAndCommitsWhatIsQueued() throws Exception {
    GroupCommit w = writer(TimeUnit.SECONDS.toNanos(60));
    AtomicInteger done = new AtomicInteger();
    w.submit("r", c -> {}, failure -> done.incrementAndGet(), GroupCommitLingerTest::closed);
    w.stop();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (done.get() == 0 && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    assertThat(done.get()).isEqualTo(1);
  }
}
