package dev.loopflow.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeOutcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Streamed text becomes {@code node.streaming} events: deltas, coalesced, numbered by reply, masked across their
 * boundaries, delivered to listeners and never journaled, without taking durable sequence numbers.
 */
class StreamingEventsTest {
  private static final String WORKFLOW = """
      name: streaming
      nodes:
        - id: before
          run: "return {}"
        - id: talk
          type: streamer
          depends_on: [before]
        - id: after
          depends_on: [talk]
          run: "return {}"
      """;

  /** A clock that moves by {@code step} every time it is read, so every delta finds the interval passed. */
  static final class MovingClock extends Clock {
    private final AtomicLong millis = new AtomicLong(1_700_000_000_000L);
    private final long step;

    MovingClock(Duration step) {
      this.step = step.toMillis();
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis.addAndGet(step));
    }
  }

  private record Run(RunResult result, List<Event> heard, List<Event> journaled) {
    List<Event.NodeStreaming> streamed() {
      return heard.stream().filter(e -> e instanceof Event.NodeStreaming).map(e -> (Event.NodeStreaming) e).toList();
    }

    String text(int reply) {
      return streamed().stream().filter(s -> s.reply() == reply).map(Event.NodeStreaming::tokens)
          .collect(Collectors.joining());
    }
  }

  private static Run run(Clock clock, Map<String, String> env, Consumer<NodeContext> body) {
    Loopflow engine = Loopflow.builder().clock(clock).handler(new ProgramHandler("streamer", ctx -> {
      body.accept(ctx);
      return NodeOutcome.of("done");
    })).build();
    List<Event> heard = new CopyOnWriteArrayList<>();
    RunResult r = engine.run(engine.parse(WORKFLOW, "streaming.yaml"),
        RunOptions.builder().environment(env).listener(heard::add).build());
    assertThat(r.status()).as("%s", r.error()).isEqualTo(RunStatus.COMPLETED);
    return new Run(r, heard, engine.store().events(r.runId()));
  }

  private static List<String> pieces(String text, int size) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < text.length(); i += size) {
      out.add(text.substring(i, Math.min(text.length(), i + size)));
    }
    return out;
  }

  @Test
  void streamedTextReachesListenersButNeverTheJournal() {
    String text = "The answer, at some length: " + "forty-two ".repeat(30);
    Run run = run(new MovingClock(Duration.ofMillis(150)), Map.of(), ctx -> pieces(text, 5).forEach(ctx::streamed));

    assertThat(run.streamed()).hasSizeGreaterThan(1);
    assertThat(run.text(1)).isEqualTo(text);
    assertThat(run.journaled()).noneMatch(e -> e instanceof Event.NodeStreaming);
    assertThat(run.journaled()).isNotEmpty().allMatch(e -> !e.ephemeral());
  }

  @Test
  void streamedEventsTakeNoSequenceNumberSoTheJournalHasNoGaps() {
    Run run = run(new MovingClock(Duration.ofMillis(150)), Map.of(),
        ctx -> pieces("x".repeat(2000), 7).forEach(ctx::streamed));

    List<Long> durable = run.journaled().stream().map(Event::seq).toList();
    for (int i = 0; i < durable.size(); i++) {
      assertThat(durable.get(i)).isEqualTo(durable.get(0) + i);
    }
    // What a listener hears: the durable events in journal order, each streamed event numbered after the last
    // durable event before it.
    assertThat(run.heard().stream().filter(e -> !e.ephemeral()).map(Event::seq).toList()).isEqualTo(durable);
    long last = 0;
    for (Event e : run.heard()) {
      if (e.ephemeral()) {
        assertThat(e.seq()).isEqualTo(last);
      } else {
        last = e.seq();
      }
    }
    // Every streamed event comes after the node's start and before its completion.
    List<String> talk = run.heard().stream().filter(e -> e instanceof Event.NodeStarted s && s.node().nodeId()
        .equals("talk") || e instanceof Event.NodeCompleted c && c.node().nodeId().equals("talk")
        || e.ephemeral()).map(Event::type).toList();
    assertThat(talk.get(0)).isEqualTo("node.started");
    assertThat(talk.get(talk.size() - 1)).isEqualTo("node.completed");
    assertThat(talk.subList(1, talk.size() - 1)).isNotEmpty().containsOnly("node.streaming");
  }

  @Test
  void manySmallDeltasAreCoalescedIntoFewEvents() {
    String text = "abcdefghij".repeat(5_000);
    // A clock that does not move: only the waiting size and the end of the reply publish.
    Run run = run(Clock.fixed(Instant.parse("2024-01-01T00:00:00Z"), ZoneOffset.UTC), Map.of(),
        ctx -> pieces(text, 1).forEach(ctx::streamed));

    assertThat(run.text(1)).isEqualTo(text);
    assertThat(run.streamed()).hasSizeLessThanOrEqualTo(text.length() / 8192 + 2);
  }

  @Test
  void aHugeDeltaIsPublishedWithoutBeingCutIntoAFloodOfEvents() {
    String huge = "y".repeat(1 << 20);
    Run run = run(new MovingClock(Duration.ofMillis(1)), Map.of(), ctx -> ctx.streamed(huge));

    assertThat(run.text(1)).isEqualTo(huge);
    assertThat(run.streamed()).hasSizeLessThanOrEqualTo(2);
  }

  @Test
  void eachEndedReplyStartsTheNextReplyNumber() {
    Run run = run(new MovingClock(Duration.ofMillis(150)), Map.of(), ctx -> {
      ctx.streamed("first reply");
      ctx.streamEnded();
      ctx.streamEnded(); // nothing streamed since: no empty reply
      ctx.streamed("second ");
      ctx.streamed("reply");
      ctx.streamEnded();
      ctx.streamed("left open"); // the engine ends it when the execution ends
    });

    assertThat(run.streamed()).extracting(Event.NodeStreaming::reply).containsOnly(1, 2, 3).isSorted();
    assertThat(run.text(1)).isEqualTo("first reply");
    assertThat(run.text(2)).isEqualTo("second reply");
    assertThat(run.text(3)).isEqualTo("left open");
    assertThat(run.streamed()).allSatisfy(s -> {
      assertThat(s.nodeId()).isEqualTo("talk");
      assertThat(s.node().path()).isEqualTo("talk");
    });
  }

  @Test
  void nothingIsPublishedForEmptyOrNullDeltas() {
    Run run = run(new MovingClock(Duration.ofMillis(150)), Map.of(), ctx -> {
      ctx.streamed("");
      ctx.streamed(null);
      ctx.streamEnded();
    });

    assertThat(run.streamed()).isEmpty();
  }

  static final String KNOWN = "q7Zx9Lm2pR4tV8wK1sd0";

  static Stream<Arguments> credentials() {
    List<Arguments> out = new ArrayList<>();
    List<String[]> secrets = List.of(
        new String[] {"a known environment value", KNOWN, KNOWN},
        new String[] {"an OpenAI-shaped key", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv"},
        new String[] {"a GitHub token", "ghp_Zq1Wx2Ec3Rv4Tb5Yn6Um7Ik8Ol9Pa0Sd1Fg", "ghp_Zq1Wx2Ec3Rv4Tb5Yn6Um7Ik8Ol9Pa0Sd1Fg"},
        new String[] {"a bearer token", "Authorization: Bearer a1b2c3d4e5f6g7h8i9j0", "a1b2c3d4e5f6g7h8i9j0"},
        new String[] {"a JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlX2hlcmU",
            "eyJzdWIiOiIxMjM0NTY3ODkwIn0"},
        new String[] {"a private key block", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
            + "BKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"},
        new String[] {"an assigned password", "password: Tr0ub4dor&3xyzzy", "Tr0ub4dor&3xyzzy"});
    for (String[] s : secrets) {
      for (int size : new int[] {1, 2, 5, 13, 40}) {
        out.add(Arguments.of(s[0], s[1], s[2], size));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} in deltas of {3}")
  @MethodSource("credentials")
  void aCredentialSplitAcrossDeltasIsMaskedInEveryEvent(String what, String written, String secret, int size) {
    String text = "Sure, here is what you asked for: " + written + " and that is all there is to say about it, "
        + "really, nothing more.";
    Run run = run(new MovingClock(Duration.ofMillis(150)), Map.of("SERVICE_API_KEY", KNOWN),
        ctx -> pieces(text, size).forEach(ctx::streamed));

    String joined = run.text(1);
    assertThat(joined).contains("[redacted]").endsWith("nothing more.");
    for (int i = 0; i + 8 <= secret.length(); i++) {
      assertThat(joined).as("part %s of the credential", secret.substring(i, i + 8))
          .doesNotContain(secret.substring(i, i + 8));
    }
    for (Event.NodeStreaming s : run.streamed()) {
      assertThat(s.tokens()).doesNotContain(secret);
    }
  }
}
