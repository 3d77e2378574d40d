package dev.loopflow.bench.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SseParserTest {
  record Got(String id, String type, long hash, int length, String data) {}

  static Stream<Arguments> streams() {
    return Stream.of(
        Arguments.of("one frame", "id: 1\nevent: run.started\ndata: {\"a\":1}\n\n",
            List.of(new Got("1", "run.started", SseParser.hashOf("{\"a\":1}"), 7, "{\"a\":1}"))),
        Arguments.of("CRLF line ends", "id: 2\r\nevent: x\r\ndata: d\r\n\r\n",
            List.of(new Got("2", "x", SseParser.hashOf("d"), 1, "d"))),
        Arguments.of("CR line ends", "id: 3\revent: x\rdata: d\r\r",
            List.of(new Got("3", "x", SseParser.hashOf("d"), 1, "d"))),
        Arguments.of("comments and heartbeats are no frames", ": heartbeat\n\n: x\nid: 4\ndata: d\n\n",
            List.of(new Got("4", "message", SseParser.hashOf("d"), 1, "d"))),
        Arguments.of("data lines join with LF", "data: a\ndata: b\n\n",
            List.of(new Got(null, "message", SseParser.hashOf("a\nb"), 3, "a\nb"))),
        Arguments.of("no space after the colon", "id:5\nevent:t\ndata:v\n\n",
            List.of(new Got("5", "t", SseParser.hashOf("v"), 1, "v"))),
        Arguments.of("only one space is dropped", "data:  v\n\n",
            List.of(new Got(null, "message", SseParser.hashOf(" v"), 2, " v"))),
        Arguments.of("a frame without data dispatches nothing", "id: 6\nevent: t\n\nid: 7\ndata: x\n\n",
            List.of(new Got("7", "message", SseParser.hashOf("x"), 1, "x"))),
        Arguments.of("an unfinished frame is not dispatched", "id: 8\ndata: x\n\nid: 9\ndata: y\n",
            List.of(new Got("8", "message", SseParser.hashOf("x"), 1, "x"))),
        Arguments.of("an ephemeral frame has no id", "event: node.streaming\ndata: {}\n\n",
            List.of(new Got(null, "node.streaming", SseParser.hashOf("{}"), 2, "{}"))),
        Arguments.of("unicode data", "id: 10\ndata: \"é😀\"\n\n",
            List.of(new Got("10", "message", SseParser.hashOf("\"é😀\""), 8, "\"é😀\""))),
        Arguments.of("unknown fields are ignored", "retry: 10\nfoo: bar\nid: 11\ndata: z\n\n",
            List.of(new Got("11", "message", SseParser.hashOf("z"), 1, "z"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("streams")
  void framesAreTheSameWhereverTheBytesAreSplit(String name, String text, List<Got> expected) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    for (int cut = 0; cut <= bytes.length; cut++) {
      List<Got> got = new ArrayList<>();
      SseParser p = new SseParser((id, type, hash, length, data) -> got.add(new Got(id, type, hash, length, data)),
          true);
      p.feed(bytes, 0, cut);
      p.feed(bytes, cut, bytes.length - cut);
      assertThat(got).as("split at byte %d", cut).isEqualTo(expected);
    }
    List<Got> oneByOne = new ArrayList<>();
    SseParser p = new SseParser((id, type, hash, length, data) -> oneByOne.add(new Got(id, type, hash, length, null)));
    for (int i = 0; i < bytes.length; i++) {
      p.feed(bytes, i, 1);
    }
    assertThat(oneByOne).isEqualTo(expected.stream()
        .map(g -> new Got(g.id(), g.type(), g.hash(), g.length(), null)).toList());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("streams")
  void resetForgetsAnUnfinishedFrame(String name, String text, List<Got> expected) {
    List<Got> got = new ArrayList<>();
    SseParser p = new SseParser((id, type, hash, length, data) -> got.add(new Got(id, type, hash, length, data)),
        true);
    byte[] partial = "id: 99\nevent: cut\ndata: half".getBytes(StandardCharsets.UTF_8);
    p.feed(partial, 0, partial.length);
    assertThat(p.midFrame()).isTrue();
    p.reset();
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    p.feed(bytes, 0, bytes.length);
    assertThat(got).isEqualTo(expected);
  }
}
