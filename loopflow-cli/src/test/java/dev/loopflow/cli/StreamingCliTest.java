package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.store.RunStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Streaming from the command line: on while progress is shown or an events file is written, off with
 * {@code --no-stream}; streamed text reaches the events file but not the journal; the plain progress says once that
 * a node streams and never prints its tokens; the live table shows the end of the text, sanitized, on one line.
 */
class StreamingCliTest {
  @TempDir
  Path dir;

  private static final String ANSWER = "A streamed answer about loops that end, told in several pieces by the mock.";

  private Path workflow() throws Exception {
    Path wf = dir.resolve("ask.yaml");
    Files.writeString(wf, """
        nodes:
          - id: ask
            type: llm
            model: "mock:demo"
            prompt: "Say something"
            mock: ["%s"]
        """.formatted(ANSWER));
    return wf;
  }

  private String store() {
    return "sqlite:" + dir.resolve("runs.db");
  }

  private List<JsonNode> lines(Path file) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (String l : Files.readAllLines(file)) {
      out.add(new ObjectMapper().readTree(l));
    }
    return out;
  }

  private static List<JsonNode> ofType(List<JsonNode> events, String type) {
    return events.stream().filter(e -> e.path("type").asText().equals(type)).toList();
  }

  @Test
  void runAndResumeHelpListNoStream() {
    assertThat(CliTest.cli("run", "--help").out()).contains("--no-stream");
    assertThat(CliTest.cli("resume", "--help").out()).contains("--no-stream");
  }

  @Test
  void theEventsFileGetsTheStreamedTextAndTheJournalDoesNot() throws Exception {
    Path events = dir.resolve("events.jsonl");
    CliTest.Run r = CliTest.cli("run", workflow().toString(), "--json", "--events-jsonl", events.toString(),
        "--store", store());
    assertThat(r.status()).as(r.err()).isZero();
    String runId = new ObjectMapper().readTree(r.out()).path("run_id").asText();

    List<JsonNode> file = lines(events);
    List<JsonNode> streamed = ofType(file, "node.streaming");
    assertThat(streamed).isNotEmpty().allSatisfy(e -> {
      assertThat(e.path("node").asText()).isEqualTo("ask");
      assertThat(e.path("node_id").asText()).isEqualTo("ask");
      assertThat(e.path("path").asText()).isEqualTo("ask");
      assertThat(e.path("reply").asInt()).isEqualTo(1);
    });
    StringBuilder text = new StringBuilder();
    streamed.forEach(e -> text.append(e.path("tokens").asText()));
    assertThat(text.toString()).isEqualTo(ANSWER);

    CliTest.Run journal = CliTest.cli("events", runId, "--store", store());
    assertThat(journal.status()).as(journal.err()).isZero();
    assertThat(journal.out()).doesNotContain("node.streaming").contains("node.completed");
    // The durable events in the file are the journal's, numbered without gaps.
    List<Long> durable = file.stream().filter(e -> !e.path("type").asText().equals("node.streaming"))
        .map(e -> e.path("seq").asLong()).toList();
    List<Long> journaled = journal.out().lines().map(l -> {
      try {
        return new ObjectMapper().readTree(l).path("seq").asLong();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }).toList();
    assertThat(durable).isEqualTo(journaled);
    for (int i = 1; i < journaled.size(); i++) {
      assertThat(journaled.get(i)).isEqualTo(journaled.get(i - 1) + 1);
    }
  }

  static Stream<Arguments> flags() {
    return Stream.of(
        Arguments.of(List.of(), true),
        Arguments.of(List.of("--json"), true),
        Arguments.of(List.of("--quiet"), true), // the events file alone turns it on
        Arguments.of(List.of("--no-stream"), false),
        Arguments.of(List.of("--json", "--quiet", "--no-stream"), false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("flags")
  void streamingFollowsTheFlags(List<String> flags, boolean streams) throws Exception {
    Path events = dir.resolve("events.jsonl");
    List<String> args = new ArrayList<>(List.of("run", workflow().toString(), "--events-jsonl", events.toString(),
        "--store", "memory"));
    args.addAll(flags);
    CliTest.Run r = CliTest.cli(args.toArray(String[]::new));
    assertThat(r.status()).as(r.err()).isZero();

    assertThat(ofType(lines(events), "node.streaming").isEmpty()).isEqualTo(!streams);
  }

  @Test
  void quietWithoutAnEventsFileDoesNotStream() throws Exception {
    CliTest.Run r = CliTest.cli("run", workflow().toString(), "--quiet", "--json", "--store", store());
    assertThat(r.status()).as(r.err()).isZero();
    String runId = new ObjectMapper().readTree(r.out()).path("run_id").asText();
    try (RunStore store = Stores.open(store())) {
      assertThat(store.findRun(runId).orElseThrow().options()).containsEntry("llm.stream", false);
    }
  }

  @Test
  void plainProgressSaysOnceThatANodeStreamsAndNeverPrintsItsTokens() throws Exception {
    CliTest.Run r = CliTest.cli("run", workflow().toString(), "--store", "memory");
    assertThat(r.status()).as(r.err()).isZero();

    assertThat(r.err().lines().filter(l -> l.contains("ask") && l.endsWith("streaming")).count()).isEqualTo(1);
    assertThat(r.err()).doesNotContain("loops that end");
    assertThat(r.out()).contains(ANSWER);
  }

  static Stream<Arguments> hostileTokens() {
    return Stream.of(
        Arguments.of("terminal escapes", List.of("\u001b[2J\u001b[H", "clear\u001b]0;title\u0007", "\u009b1A up")),
        Arguments.of("line breaks", List.of("one\ntwo\r\nthree", "\rfour\u2028five\u2029six\u0085seven")),
        Arguments.of("bidi and invisible", List.of("\u202Egnp.exe\u202C", "\u200B\u200D\uFEFFzero width")),
        Arguments.of("wide characters", List.of("漢字".repeat(100), "\uD83D\uDE00".repeat(100))),
        Arguments.of("a split surrogate pair", List.of("abc\uD83D", "\uDE00def")),
        Arguments.of("combining marks", List.of("Z\u0351\u0352\u0353".repeat(500))),
        Arguments.of("one megabyte", List.of("m".repeat(1 << 20), "the end")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileTokens")
  void theLiveTableShowsTheEndOfTheStreamOnOneSanitizedLine(String what, List<String> deltas) {
    Workflow wf = Loopflow.create().parse("""
        nodes:
          - id: ask
            type: llm
            model: "mock:demo"
            prompt: "hi"
          - id: after
            bash: echo ok
        """, "live.yaml");
    StringWriter screen = new StringWriter();
    Progress.Live live = new Progress.Live(new PrintWriter(screen), wf);
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    NodePosition ask = NodePosition.top("ask");
    live.onEvent(new Event.NodeStarted("r", 1, t, ask, "llm", 1));
    for (String d : deltas) {
      live.onEvent(new Event.NodeStreaming("r", 1, t, ask, "ask", 1, d));
    }
    String frame = lastFrame(screen.toString());
    List<String> tail = frame.lines().filter(l -> l.startsWith("\033[2K    ")).toList();
    assertThat(tail).hasSize(1);
    String shown = tail.get(0).substring("\033[2K    ".length());
    int columns = shown.codePoints().map(StreamTail::width).sum();
    assertThat(columns).isBetween(1, StreamTail.COLUMNS);
    assertThat(shown.codePoints()).allSatisfy(cp -> {
      assertThat(Character.isISOControl(cp)).as("U+%04X", cp).isFalse();
      assertThat(Character.getType(cp)).as("U+%04X", cp).isNotIn((int) Character.FORMAT,
          (int) Character.LINE_SEPARATOR, (int) Character.PARAGRAPH_SEPARATOR, (int) Character.SURROGATE);
    });
    // Header, ask, its text, after, footer; then only the clear-below.
    assertThat(frame.lines().toList()).hasSize(6).last().isEqualTo("\033[J");

    live.onEvent(new Event.NodeCompleted("r", 2, t, ask, "llm", 5, "", 1, 1, null, 0));
    String done = lastFrame(screen.toString());
    assertThat(done.lines().filter(l -> l.startsWith("\033[2K    "))).isEmpty();
    assertThat(screen.toString()).contains("\033[5F\033[2K" + "NODE"); // moved up over the 5-line frame
    assertThat(done).endsWith("\033[J");
  }

  @Test
  void theLiveTableStartsTheTextOverForANewReply() {
    Workflow wf = Loopflow.create().parse("""
        nodes:
          - id: ask
            type: agent
            model: "mock:demo"
            prompt: "hi"
        """, "live.yaml");
    StringWriter screen = new StringWriter();
    Progress.Live live = new Progress.Live(new PrintWriter(screen), wf);
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    NodePosition ask = NodePosition.top("ask");
    live.onEvent(new Event.NodeStarted("r", 1, t, ask, "agent", 1));
    live.onEvent(new Event.NodeStreaming("r", 1, t, ask, "ask", 1, "Looking it up."));
    live.onEvent(new Event.NodeStreaming("r", 1, t, ask, "ask", 2, "Paris."));

    String frame = lastFrame(screen.toString());
    assertThat(frame).contains("\033[2K    Paris.").doesNotContain("Looking it up.");
  }

  @Test
  void theLiveTableStartsTheTextOverForANewExecution_bugARetryAppendedToTheFailedAttemptsText() {
    Workflow wf = Loopflow.create().parse("""
        nodes:
          - id: ask
            type: llm
            model: "mock:demo"
            prompt: "hi"
        """, "live.yaml");
    StringWriter screen = new StringWriter();
    Progress.Live live = new Progress.Live(new PrintWriter(screen), wf);
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    NodePosition ask = NodePosition.top("ask");
    live.onEvent(new Event.NodeStarted("r", 1, t, ask, "llm", 1));
    live.onEvent(new Event.NodeStreaming("r", 1, t, ask, "ask", 1, "First attempt"));
    live.onEvent(new Event.NodeRetrying("r", 2, t, ask, "llm", 2, "timed out"));
    live.onEvent(new Event.NodeStarted("r", 3, t, ask, "llm", 2));
    live.onEvent(new Event.NodeStreaming("r", 3, t, ask, "ask", 1, "Second"));

    String frame = lastFrame(screen.toString());
    assertThat(frame).contains("\033[2K    Second").doesNotContain("First attempt");
  }

  private static String lastFrame(String screen) {
    return screen.substring(screen.lastIndexOf("\033[2KNODE"));
  }
}
