package dev.loopflow.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The live feed: never blocks the engine, drops a subscriber that falls behind, which then misses nothing. */
class RunFeedTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  final SseFrames frames = new SseFrames(Redactor.of(List.of()));

  private static Event started(String run, long seq) {
    return new Event.NodeStarted(run, seq, T0, NodePosition.top("n" + seq), "shell", 1);
  }

  @Test
  void aSubscriberThatDoesNotReadIsDroppedAndOthersGetEverything() throws Exception {
    RunFeed feed = new RunFeed("r", 16, frames);
    RunFeed.Subscription slow = feed.subscribe();
    RunFeed.Subscription fast = feed.subscribe();
    List<Long> got = new java.util.concurrent.CopyOnWriteArrayList<>();
    Thread reader = Thread.ofVirtual().start(() -> {
      try {
        for (;;) {
          SseFrames.Frame f = fast.poll(Duration.ofSeconds(10));
          if (f == null || RunFeed.Subscription.isEnd(f)) {
            return;
          }
          got.add(f.seq());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    for (long seq = 1; seq <= 200; seq++) {
      feed.onEvent(started("r", seq)); // returns at once whatever the subscribers do
      while (got.size() < seq && reader.isAlive()) {
        Thread.onSpinWait(); // keep the fast reader within its queue
      }
    }
    feed.close();
    reader.join();
    assertThat(slow.overflowed()).isTrue();
    assertThat(RunFeed.Subscription.isEnd(slow.poll(Duration.ofSeconds(1)))).isTrue();
    assertThat(fast.overflowed()).isFalse();
    assertThat(got).hasSize(200);
    for (int i = 0; i < got.size(); i++) {
      assertThat(got.get(i)).isEqualTo(i + 1L);
    }
  }

  @Test
  void aNewSubscriberIsPrimedWithRecentFramesAndNoneAfterTheEnd() throws Exception {
    RunFeed feed = new RunFeed("r", 4096, frames);
    for (long seq = 1; seq <= RunFeed.RECENT + 10; seq++) {
      feed.onEvent(started("r", seq));
    }
    RunFeed.Subscription s = feed.subscribe();
    assertThat(s.poll(Duration.ofSeconds(1)).seq()).isEqualTo(11);
    feed.close();
    assertThat(feed.subscribe()).isNull();
    assertThat(feed.awaitFirstEvent(Duration.ZERO)).isTrue();
  }

  @Test
  void aStreamDroppedForFallingBehindEndsAndTheJournalHasTheRest() throws Exception {
    RunStore store = RunStore.inMemory();
    store.createRun(RunRecord.builder().runId("r").workflow("w").status(RunStatus.RUNNING).startedAt(T0).build());
    RunFeed feed = new RunFeed("r", 16, frames);
    CountDownLatch unblock = new CountDownLatch(1);
    CountDownLatch writing = new CountDownLatch(1);
    ByteArrayOutputStream written = new ByteArrayOutputStream();
    OutputStream stuck = new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        writing.countDown();
        try {
          unblock.await(); // a client that does not read: the first write blocks
        } catch (InterruptedException e) {
          throw new IOException(e);
        }
        written.write(b, off, len);
      }
    };
    // The engine's order: the journal first, then the listeners.
    store.appendEvent(started("r", 1));
    feed.onEvent(started("r", 1));
    Thread stream = Thread.ofVirtual().start(() -> {
      try {
        new EventStream(store, frames, "r", 0, 0, Duration.ofSeconds(30), () -> false, stuck, line -> {}).run(feed);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    // The stream has subscribed and replayed the journal: it is stuck writing the first event.
    writing.await();
    for (long seq = 2; seq <= 100; seq++) {
      store.appendEvent(started("r", seq));
      feed.onEvent(started("r", seq));
    }
    unblock.countDown();
    stream.join(Duration.ofSeconds(10).toMillis());
    assertThat(stream.isAlive()).as("the dropped stream ended").isFalse();
    List<Long> first = ids(written.toString(StandardCharsets.UTF_8));
    assertThat(first).isNotEmpty();
    // Reconnecting from the last id sent: the rest, from the journal, with nothing missed or repeated.
    Event finished = new Event.RunFinished("r", 101, T0, "completed", null, null, 0, 0, null, 0);
    store.appendEvent(finished);
    feed.onEvent(finished);
    feed.close();
    store.updateRun(store.findRun("r").orElseThrow().finish(RunStatus.COMPLETED, T0, null, null, null));
    ByteArrayOutputStream rest = new ByteArrayOutputStream();
    new EventStream(store, frames, "r", first.getLast(), 0, Duration.ofSeconds(30), () -> false, rest, line -> {})
        .run(null);
    List<Long> all = new ArrayList<>(first);
    all.addAll(ids(rest.toString(StandardCharsets.UTF_8)));
    assertThat(all).hasSize(101);
    for (int i = 0; i < all.size(); i++) {
      assertThat(all.get(i)).isEqualTo(i + 1L);
    }
  }

  @Test
  void anEphemeralEventHasNoIdAndTheNumberOfTheEventBefore() {
    SseFrames.Frame f = frames.of(new Event.NodeStreaming("r", 7, T0, NodePosition.top("a"), "a", 1, "tok"));
    String text = new String(f.bytes(), StandardCharsets.UTF_8);
    assertThat(text).doesNotContain("id:").startsWith("event: node.streaming\ndata: {");
    assertThat(f.ephemeral()).isTrue();
    assertThat(f.seq()).isEqualTo(7);
    SseFrames.Frame g = frames.of(new Event.RunStarted("r", 1, T0, "w", Map.of("text", "line\nbreak\r\u2028")));
    String lines = new String(g.bytes(), StandardCharsets.UTF_8);
    assertThat(lines.split("\n")).hasSize(3); // id, event, data; then the blank line
    assertThat(lines).endsWith("\n\n");
  }

  @Test
  void aStoreFailingUnderAnOpenStreamEndsItWithACommentAndALogLine() throws Exception {
    RunStore real = RunStore.inMemory();
    real.createRun(RunRecord.builder().runId("r").workflow("w").status(RunStatus.RUNNING).startedAt(T0).build());
    real.appendEvent(started("r", 1));
    int[] reads = {0};
    RunStore failing = (RunStore) java.lang.reflect.Proxy.newProxyInstance(RunStore.class.getClassLoader(),
        new Class<?>[] {RunStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("events") && ++reads[0] > 1) {
            throw new IllegalStateException("the disk is gone\nsecond line");
          }
          try {
            return method.invoke(real, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
    new EventStream(failing, frames, "r", 0, 0, Duration.ofMillis(100), () -> false, out, log::add).run(null);
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(ids(text)).containsExactly(1L);
    assertThat(text).endsWith(": the stream stopped: the disk is gone\n\n");
    assertThat(log).singleElement().asString().contains("run r").contains("the disk is gone");
  }

  private static List<Long> ids(String stream) {
    List<Long> out = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^id: (\\d+)$").matcher(stream);
    while (m.find()) {
      out.add(Long.parseLong(m.group(1)));
    }
    return out;
  }
}
