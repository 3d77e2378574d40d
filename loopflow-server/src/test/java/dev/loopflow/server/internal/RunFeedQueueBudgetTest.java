package dev.loopflow.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.secrets.Redactor;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A stream may fall its whole queue behind before it is cut off, however many recent frames it was primed with: the
 * primer is what the stream replays from the journal anyway, not lag.
 */
class RunFeedQueueBudgetTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  final SseFrames frames = new SseFrames(Redactor.of(List.of()));

  private static Event started(long seq) {
    return new Event.NodeStarted("r", seq, T0, NodePosition.top("n" + seq), "shell", 1);
  }

  @ParameterizedTest(name = "queue of {0}")
  @ValueSource(ints = {16, 100, 511, 512, 513, 4096})
  void aSubscriberJoiningABusyRunMayFallItsWholeQueueBehind_bugPrimerUsedTheQueue(int queue) throws Exception {
    RunFeed feed = new RunFeed("r", queue, frames);
    long seq = 0;
    while (seq < RunFeed.RECENT + 10) {
      feed.onEvent(started(++seq)); // a run well under way: the feed holds RECENT recent frames
    }
    RunFeed.Subscription s = feed.subscribe();
    for (int i = 0; i < queue; i++) {
      feed.onEvent(started(++seq)); // the subscriber reads nothing: it falls exactly `queue` events behind
    }
    assertThat(s.overflowed()).as("cut off while %d events behind", queue).isFalse();
    // It still gets the primer, then every live frame in order; one more frame and it is cut off.
    long expected = seq - queue - RunFeed.RECENT + 1;
    for (int i = 0; i < RunFeed.RECENT + queue; i++) {
      assertThat(s.poll(Duration.ofSeconds(1)).seq()).isEqualTo(expected++);
    }
    RunFeed.Subscription late = feed.subscribe();
    for (int i = 0; i <= queue; i++) {
      feed.onEvent(started(++seq));
    }
    assertThat(late.overflowed()).as("cut off once more than %d events behind", queue).isTrue();
  }
}
