package dev.loopflow.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.EventListener;
import dev.loopflow.core.secrets.Redactor;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The event bus on its own: the numbering and order every subscriber sees, masking before delivery, what a throwing
 * listener or journal leads to, and silence after close.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EventBusTest {
  private static final Instant T0 = Instant.parse("2030-01-02T03:04:05Z");
  private static final Clock CLOCK = Clock.fixed(T0, ZoneOffset.UTC);
  private static final NodePosition A = new NodePosition(List.of(), "a");

  private static EventBus bus(long lastSeq, EventListener... listeners) {
    return new EventBus("run_1", CLOCK, List.of(listeners), lastSeq, Redactor.of(List.of()));
  }

  private static void started(EventBus bus, String node) {
    bus.publish((seq, at) -> new Event.NodeStarted("run_1", seq, at, new NodePosition(List.of(), node), "shell", 1));
  }

  private static List<String> describe(List<Event> events) {
    return events.stream().map(e -> e.seq() + " " + e.type()
        + (e instanceof Event.NodeStarted s ? " " + s.node().path() : "")).toList();
  }

  /** A listener whose every call throws, recording the events it was given. */
  private record Throwing(List<Event> seen) implements EventListener {
    Throwing() {
      this(new CopyOnWriteArrayList<>());
    }

    @Override
    public void onEvent(Event event) {
      seen.add(event);
      throw new IllegalStateException("listener broke on " + event.type());
    }
  }

  @Test
  void sequenceNumbersContinueAfterTheLastJournaledOneAndCarryTheClocksTime() {
    List<Event> seen = new ArrayList<>();
    EventBus bus = bus(41, seen::add);

    started(bus, "a");
    started(bus, "b");

    assertThat(seen).extracting(Event::seq).containsExactly(42L, 43L);
    assertThat(seen).extracting(Event::at).containsOnly(T0);
    assertThat(seen).extracting(Event::runId).containsOnly("run_1");
    assertThat(bus.now()).isEqualTo(T0);
  }

  @Test
  void journalIsCalledFirstThenListenersInTheOrderGiven() {
    List<String> calls = new ArrayList<>();
    EventBus bus = bus(0, e -> calls.add("first " + e.seq()), e -> calls.add("second " + e.seq()));
    bus.journal(e -> calls.add("journal " + e.seq()), failure -> calls.add("journal failed"));

    started(bus, "a");
    started(bus, "b");

    assertThat(calls).containsExactly("journal 1", "first 1", "second 1", "journal 2", "first 2", "second 2");
  }

  @Test
  void concurrentPublishersProduceOneOrderThatEverySubscriberSees() throws Exception {
    List<Long> journal = new CopyOnWriteArrayList<>();
    List<Long> first = new CopyOnWriteArrayList<>();
    List<Long> second = new CopyOnWriteArrayList<>();
    EventBus bus = bus(0, e -> first.add(e.seq()), e -> second.add(e.seq()));
    bus.journal(e -> journal.add(e.seq()), failure -> {
      throw new AssertionError(failure);
    });
    int threads = 8;
    int each = 200;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String node = "n" + t;
        done.add(pool.submit(() -> {
          go.await();
          for (int i = 0; i < each; i++) {
            started(bus, node);
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    List<Long> expected = java.util.stream.LongStream.rangeClosed(1, (long) threads * each).boxed().toList();
    assertThat(journal).containsExactlyElementsOf(expected);
    assertThat(first).containsExactlyElementsOf(expected);
    assertThat(second).containsExactlyElementsOf(expected);
  }

  @Test
  void everySubscriberGetsTheEventWithCredentialsMasked() {
    List<Event> seen = new ArrayList<>();
    List<Event> journaled = new ArrayList<>();
    EventBus bus = new EventBus("run_1", CLOCK, List.of(seen::add), 0, Redactor.of(List.of("hunter2-hunter2")));
    bus.journal(journaled::add, failure -> {
      throw new AssertionError(failure);
    });

    bus.publish((seq, at) -> new Event.RunStarted("run_1", seq, at, "wf", Map.of("note", "hunter2-hunter2")));

    for (List<Event> events : List.of(seen, journaled)) {
      assertThat(events).singleElement().isInstanceOfSatisfying(Event.RunStarted.class,
          e -> assertThat(e.inputs()).containsEntry("note", Redactor.MASK));
    }
  }

  @Test
  void aThrowingListenerIsDetachedAndReportedAfterTheEventThatBrokeIt() {
    List<Event> before = new ArrayList<>();
    Throwing broken = new Throwing();
    List<Event> after = new ArrayList<>();
    List<Event> journaled = new ArrayList<>();
    EventBus bus = bus(0, before::add, broken, after::add);
    bus.journal(journaled::add, failure -> {
      throw new AssertionError(failure);
    });

    started(bus, "a");
    started(bus, "b");

    List<String> expected = List.of("1 node.started a", "2 listener.failed", "3 node.started b");
    assertThat(describe(journaled)).containsExactlyElementsOf(expected);
    assertThat(describe(before)).containsExactlyElementsOf(expected);
    assertThat(describe(after)).containsExactlyElementsOf(expected);
    // Called once, for the event that broke it: never for its own report nor for anything later.
    assertThat(describe(broken.seen())).containsExactly("1 node.started a");
    assertThat(journaled.get(1)).isInstanceOfSatisfying(Event.ListenerFailed.class, f -> {
      assertThat(f.listener()).isEqualTo("listener 2 (" + Throwing.class.getName() + ")");
      assertThat(f.eventType()).isEqualTo("node.started");
      assertThat(f.message()).isEqualTo("IllegalStateException: listener broke on node.started");
      assertThat(f.at()).isEqualTo(T0);
    });
  }

  @Test
  void aLambdaListenerIsNamedByItsRegistrationNumberAndTheClassDeclaringIt() {
    List<Event> journaled = new ArrayList<>();
    EventBus bus = bus(0, e -> { }, e -> {
      throw new UnsupportedOperationException();
    });
    bus.journal(journaled::add, failure -> {
      throw new AssertionError(failure);
    });

    started(bus, "a");

    assertThat(journaled).filteredOn(Event.ListenerFailed.class::isInstance).singleElement()
        .isInstanceOfSatisfying(Event.ListenerFailed.class, f -> {
          assertThat(f.listener()).isEqualTo("listener 2 (" + EventBusTest.class.getName() + ")");
          assertThat(f.message()).isEqualTo("UnsupportedOperationException");
        });
  }

  @Test
  void aListenerThatAlsoFailsOnTheFailureReportIsDetachedAndReportedInTurn() {
    Throwing firstToBreak = new Throwing();
    List<Event> journaled = new ArrayList<>();
    List<Event> healthy = new ArrayList<>();
    // The second listener only breaks on listener.failed events: the report of the first failure detaches it.
    EventListener breaksOnReports = e -> {
      if (e instanceof Event.ListenerFailed) {
        throw new IllegalStateException("cannot handle reports");
      }
    };
    EventBus bus = bus(0, firstToBreak, breaksOnReports, healthy::add);
    bus.journal(journaled::add, failure -> {
      throw new AssertionError(failure);
    });

    started(bus, "a");
    started(bus, "b");

    assertThat(describe(journaled)).containsExactly("1 node.started a", "2 listener.failed", "3 listener.failed",
        "4 node.started b");
    assertThat(describe(healthy)).isEqualTo(describe(journaled));
    assertThat(journaled.subList(1, 3)).extracting(e -> ((Event.ListenerFailed) e).listener() + " on "
            + ((Event.ListenerFailed) e).eventType())
        .containsExactly("listener 1 (" + Throwing.class.getName() + ") on node.started",
            "listener 2 (" + EventBusTest.class.getName() + ") on listener.failed");
  }

  @Test
  void aJournalFailureGoesToItsCallbackAndTheJournalStaysAttached() {
    List<Throwable> failures = new ArrayList<>();
    List<Event> seen = new ArrayList<>();
    List<Long> journalCalls = new ArrayList<>();
    EventBus bus = bus(0, seen::add);
    bus.journal(e -> {
      journalCalls.add(e.seq());
      throw new IllegalStateException("disk full");
    }, failures::add);

    started(bus, "a");
    started(bus, "b");

    assertThat(failures).hasSize(2).allSatisfy(f -> assertThat(f).hasMessage("disk full"));
    assertThat(journalCalls).containsExactly(1L, 2L);
    // A journal failure is the run's to handle, not a detached observer: no listener.failed event.
    assertThat(describe(seen)).containsExactly("1 node.started a", "2 node.started b");
  }

  @Test
  void aVirtualMachineErrorInAListenerIsNotSwallowed() {
    EventBus bus = bus(0, e -> {
      throw new OutOfMemoryError("simulated");
    });

    assertThatThrownBy(() -> started(bus, "a")).isInstanceOf(OutOfMemoryError.class).hasMessage("simulated");
  }

  @Test
  void afterCloseNothingIsPublishedAndNoSequenceNumberIsUsed() {
    List<Event> seen = new ArrayList<>();
    List<Event> journaled = new ArrayList<>();
    EventBus bus = bus(0, seen::add);
    bus.journal(journaled::add, failure -> {
      throw new AssertionError(failure);
    });
    started(bus, "a");

    bus.close();
    AtomicBoolean made = new AtomicBoolean();
    bus.publish((seq, at) -> {
      made.set(true);
      return new Event.NodeStarted("run_1", seq, at, A, "shell", 1);
    });

    assertThat(made).as("the late event is not even built").isFalse();
    assertThat(describe(seen)).containsExactly("1 node.started a");
    assertThat(describe(journaled)).containsExactly("1 node.started a");
  }
}
