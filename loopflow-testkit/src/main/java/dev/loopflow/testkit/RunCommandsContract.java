package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loopflow.core.store.RunCommand;
import dev.loopflow.core.store.RunStore;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The command bus part of the {@link RunStore} contract: numbering, order, first answer wins, JSON payloads that
 * read back exactly, limits, concurrent appenders (in one store and, for durable stores, two stores on the same
 * database, as two processes would be) and the commands version. {@link RunStoreContract} runs it on every store.
 */
public interface RunCommandsContract {
  Instant T0 = Instant.parse("2026-11-22T10:15:30.123456789Z");
  /** The size limit of a command payload or response, as UTF-8 JSON. */
  int DOCUMENT_LIMIT = 64 * 1024;

  /** The store under test, open. */
  RunStore storeUnderTest();

  /** A second store on the same database (a second process); null when the store is not durable. */
  RunStore sameDatabaseAgain() throws Exception;

  private static String runId() {
    return "run_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
  }

  private static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  default void commandsAreNumberedPerRunFromOneAndComeBackInOrder() {
    RunStore store = storeUnderTest();
    String a = runId();
    String b = runId();
    List<RunCommand> appended = new ArrayList<>();
    appended.add(store.appendCommand(a, "restart", map("target_stage_id", "discover", "reason", "stale",
        "parameters", map("depth", 2, "tags", List.of("x", "y"))), T0));
    appended.add(store.appendCommand(a, "restart", map("target_stage_id", "plan"), T0.plusNanos(1)));
    RunCommand other = store.appendCommand(b, "restart", Map.of(), T0.plusSeconds(1));
    appended.add(store.appendCommand(a, "other-kind", null, T0.plusSeconds(2)));

    assertThat(appended).extracting(RunCommand::seq).containsExactly(1L, 2L, 3L);
    assertThat(other.seq()).isEqualTo(1);
    assertThat(appended.get(2).payload()).as("a null payload is stored as an empty one").isEmpty();
    assertThat(appended).allMatch(RunCommand::pending);
    assertThat(store.commands(a)).containsExactlyElementsOf(appended);
    assertThat(store.pendingCommands(a)).containsExactlyElementsOf(appended);
    assertThat(store.commands(b)).containsExactly(other);
    assertThat(store.commands(runId())).isEmpty();
    assertThat(store.pendingCommands(runId())).isEmpty();
  }

  /** The run need not exist, nor be executing: the command waits for the engine that next takes the run. */
  @Test
  default void aCommandForARunWithoutARecordIsKept() {
    RunStore store = storeUnderTest();
    String id = runId();
    assertThat(store.findRun(id)).isEmpty();
    RunCommand c = store.appendCommand(id, "restart", Map.of("target_stage_id", "a"), T0);
    assertThat(store.pendingCommands(id)).containsExactly(c);
  }

  @Test
  default void theFirstAnswerToACommandWins() {
    RunStore store = storeUnderTest();
    String id = runId();
    for (int i = 0; i < 3; i++) {
      store.appendCommand(id, "restart", Map.of("i", i), T0);
    }
    store.respondCommand(id, 2, map("success", true, "error", null), T0.plusSeconds(5));
    store.respondCommand(id, 2, map("success", false, "error", map("code", "late")), T0.plusSeconds(6));
    store.respondCommand(id, 2, Map.of(), T0.plusSeconds(7));

    List<RunCommand> all = store.commands(id);
    assertThat(all.get(1).response()).isEqualTo(map("success", true, "error", null));
    assertThat(all.get(1).respondedAt()).isEqualTo(T0.plusSeconds(5));
    assertThat(all.get(1).payload()).isEqualTo(Map.of("i", 1));
    assertThat(store.pendingCommands(id)).extracting(RunCommand::seq).containsExactly(1L, 3L);

    store.respondCommand(id, 1, Map.of(), T0.plusSeconds(8));
    store.respondCommand(id, 3, Map.of("n", 3), T0.plusSeconds(9));
    assertThat(store.pendingCommands(id)).isEmpty();
    assertThat(store.commands(id)).extracting(RunCommand::response)
        .containsExactly(Map.of(), map("success", true, "error", null), Map.of("n", 3));
  }

  @Test
  default void answeringACommandThatDoesNotExistChangesNothing() {
    RunStore store = storeUnderTest();
    String id = runId();
    RunCommand c = store.appendCommand(id, "restart", Map.of(), T0);
    for (long seq : new long[] {0, -1, 2, 99, Long.MAX_VALUE, Long.MIN_VALUE}) {
      store.respondCommand(id, seq, Map.of("success", true), T0);
    }
    store.respondCommand(runId(), 1, Map.of("success", true), T0);
    assertThat(store.commands(id)).containsExactly(c);
  }

  @Test
  default void anAnswerMustBeGiven() {
    RunStore store = storeUnderTest();
    String id = runId();
    store.appendCommand(id, "restart", Map.of(), T0);
    assertThatThrownBy(() -> store.respondCommand(id, 1, null, T0)).isInstanceOf(IllegalArgumentException.class);
    assertThat(store.pendingCommands(id)).hasSize(1);
  }

  /** Values a payload may hold, each with what it reads back as (JSON data as a JSON parser gives it). */
  static Stream<Arguments> jsonValues() {
    Map<String, Object> nullValued = new HashMap<>();
    nullValued.put("k", null);
    List<Object> withNull = new ArrayList<>();
    withNull.add(null);
    withNull.add(1);
    String refLike = "\u0000lf:v1:" + "0".repeat(64);
    return Stream.of(
        Arguments.of("empty string", "", ""),
        Arguments.of("NUL", "\u0000", "\u0000"),
        Arguments.of("unpaired high surrogate", "a\uD800b", "a\uD800b"),
        Arguments.of("unpaired low surrogate", "\uDC00", "\uDC00"),
        Arguments.of("emoji and other scripts", "😀 日本語 العربية é", "😀 日本語 العربية é"),
        Arguments.of("quotes and backslashes", "'\"\\\"'; DROP TABLE lf_runs; --", "'\"\\\"'; DROP TABLE lf_runs; --"),
        Arguments.of("control characters", "\n\r\t\b\f\u001b\u007f\u2028\u2029", "\n\r\t\b\f\u001b\u007f\u2028\u2029"),
        Arguments.of("a store reference look-alike", refLike, refLike),
        Arguments.of("a JSON look-alike string", "{\"a\":1}", "{\"a\":1}"),
        Arguments.of("long string", "x".repeat(60_000), "x".repeat(60_000)),
        Arguments.of("int", Integer.MIN_VALUE, Integer.MIN_VALUE),
        Arguments.of("long beyond int", Long.MAX_VALUE, Long.MAX_VALUE),
        Arguments.of("big integer beyond long", BigInteger.TWO.pow(70), BigInteger.TWO.pow(70)),
        Arguments.of("double", 0.1, 0.1),
        Arguments.of("negative zero", -0.0, -0.0),
        Arguments.of("largest double", Double.MAX_VALUE, Double.MAX_VALUE),
        Arguments.of("smallest double", Double.MIN_VALUE, Double.MIN_VALUE),
        Arguments.of("true", true, true),
        Arguments.of("null in a map", nullValued, nullValued),
        Arguments.of("null in a list", withNull, withNull),
        Arguments.of("hostile map keys", map("", 1, "\u0000", 2, "\uD800", 3, "a.b[0]", 4, "$", 5, "😀", 6),
            map("", 1, "\u0000", 2, "\uD800", 3, "a.b[0]", 4, "$", 5, "😀", 6)),
        Arguments.of("nested", List.of(Map.of("a", List.of(List.of(), Map.of()))),
            List.of(Map.of("a", List.of(List.of(), Map.of())))),
        Arguments.of("256 levels deep", deep(255), deep(255)));
  }

  private static Object deep(int levels) {
    Object v = "bottom";
    for (int i = 0; i < levels; i++) {
      v = i % 2 == 0 ? List.of(v) : Map.of("d", v);
    }
    return v;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.loopflow.testkit.RunCommandsContract#jsonValues")
  default void payloadsAndResponsesReadBackAsJsonData(String what, Object value, Object expected) throws Exception {
    RunStore store = storeUnderTest();
    String id = runId();
    RunCommand c = store.appendCommand(id, "restart", map("v", value), T0);
    store.respondCommand(id, 1, map("v", value, "ok", true), T0.plusMillis(1));
    assertThat(c.payload()).isEqualTo(map("v", expected));
    List<RunStore> readers = new ArrayList<>(List.of(store));
    RunStore again = sameDatabaseAgain();
    if (again != null) {
      readers.add(again);
    }
    try {
      for (RunStore r : readers) {
        RunCommand read = r.commands(id).get(0);
        assertThat(read.payload()).isEqualTo(map("v", expected));
        assertThat(read.response()).isEqualTo(map("v", expected, "ok", true));
      }
    } finally {
      if (again != null) {
        again.close();
      }
    }
  }

  /** What would not read back as written (or at all) is refused, and nothing is appended or answered. */
  static Stream<Arguments> notJsonData() {
    Map<Object, Object> intKey = new HashMap<>();
    intKey.put(1, "one");
    Map<String, Object> cycle = new HashMap<>();
    cycle.put("self", cycle);
    return Stream.of(
        Arguments.of("NaN", Double.NaN),
        Arguments.of("infinity", Double.POSITIVE_INFINITY),
        Arguments.of("float NaN", Float.NaN),
        Arguments.of("big decimal", new BigDecimal("0.10000000000000000555")),
        Arguments.of("instant", T0),
        Arguments.of("plain object", new Object()),
        Arguments.of("bytes", new byte[] {1, 2}),
        Arguments.of("set", Set.of("a")),
        Arguments.of("map with a non-string key", intKey),
        Arguments.of("a cycle", cycle),
        Arguments.of("258 levels deep", deep(257)),
        Arguments.of("too large", "x".repeat(DOCUMENT_LIMIT)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.loopflow.testkit.RunCommandsContract#notJsonData")
  default void payloadsAndResponsesThatWouldNotReadBackAreRefused(String what, Object value) {
    RunStore store = storeUnderTest();
    String id = runId();
    assertThatThrownBy(() -> store.appendCommand(id, "restart", map("v", value), T0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("command payload");
    assertThat(store.commands(id)).isEmpty();
    store.appendCommand(id, "restart", Map.of(), T0);
    assertThatThrownBy(() -> store.respondCommand(id, 1, map("v", value), T0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("command response");
    assertThat(store.pendingCommands(id)).hasSize(1);
  }

  @Test
  default void aPayloadOrResponseMayBeSixtyFourKibibytesOfJson() {
    RunStore store = storeUnderTest();
    String id = runId();
    // {"v":"xxx..."} is the string plus 8 bytes.
    Map<String, Object> atLimit = Map.of("v", "x".repeat(DOCUMENT_LIMIT - 8));
    Map<String, Object> overLimit = Map.of("v", "x".repeat(DOCUMENT_LIMIT - 7));
    assertThat(store.appendCommand(id, "restart", atLimit, T0).payload()).isEqualTo(atLimit);
    assertThatThrownBy(() -> store.appendCommand(id, "restart", overLimit, T0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("command payload")
        .hasMessageContaining(String.valueOf(DOCUMENT_LIMIT + 1)).hasMessageContaining(String.valueOf(DOCUMENT_LIMIT));
    assertThatThrownBy(() -> store.respondCommand(id, 1, overLimit, T0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("command response");
    store.respondCommand(id, 1, atLimit, T0);
    assertThat(store.commands(id)).singleElement().extracting(RunCommand::response).isEqualTo(atLimit);
    // Escapes count: a NUL is six bytes of JSON.
    assertThatThrownBy(() -> store.appendCommand(id, "restart", Map.of("v", "\u0000".repeat(11_000)), T0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  static Stream<Arguments> badNames() {
    return Stream.of(
        Arguments.of("empty run id", "", "restart"),
        Arguments.of("NUL in the run id", "run_\u0000", "restart"),
        Arguments.of("unpaired surrogate in the run id", "run_\uD800", "restart"),
        Arguments.of("run id over 1024 bytes", "é".repeat(512) + "x", "restart"),
        Arguments.of("empty kind", "run_x", ""),
        Arguments.of("NUL in the kind", "run_x", "re\u0000start"),
        Arguments.of("unpaired surrogate in the kind", "run_x", "\uDFFF"),
        Arguments.of("kind over 256 bytes", "run_x", "k".repeat(257)),
        Arguments.of("missing run id", null, "restart"),
        Arguments.of("missing kind", "run_x", null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.loopflow.testkit.RunCommandsContract#badNames")
  default void runIdsAndKindsMustBeTextTheStoreKeepsExactly(String what, String runId, String kind) {
    RunStore store = storeUnderTest();
    assertThatThrownBy(() -> store.appendCommand(runId, kind, Map.of(), T0))
        .isInstanceOf(IllegalArgumentException.class);
    if (what.contains("run id")) {
      // No command can be stored under such an id, and asking for one is the same mistake.
      assertThatThrownBy(() -> store.commands(runId)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.pendingCommands(runId)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.respondCommand(runId, 1, Map.of(), T0))
          .isInstanceOf(IllegalArgumentException.class);
    } else {
      assertThat(store.commands(runId)).isEmpty();
    }
  }

  @Test
  default void runIdsAndKindsAtTheirLimitsAreKept() {
    RunStore store = storeUnderTest();
    String longId = "é".repeat(511) + "xy"; // 1024 bytes of UTF-8
    String longKind = "😀".repeat(64); // 256 bytes
    String odd = "run '%_\\\"; --";
    RunCommand c = store.appendCommand(longId, longKind, Map.of(), T0);
    RunCommand d = store.appendCommand(odd, "restart", Map.of(), T0);
    assertThat(store.commands(longId)).containsExactly(c);
    assertThat(store.commands(odd)).containsExactly(d);
    assertThat(store.commands("run %")).isEmpty();
  }

  @Test
  default void concurrentAppendersGetDistinctConsecutiveNumbers() throws Exception {
    RunStore store = storeUnderTest();
    RunStore second = sameDatabaseAgain();
    List<RunStore> stores = second == null ? List.of(store) : List.of(store, second);
    String id = runId();
    int writers = 12;
    int each = 20;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<List<RunCommand>>> results = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        RunStore via = stores.get(w % stores.size());
        results.add(pool.submit(() -> {
          start.await();
          List<RunCommand> mine = new ArrayList<>();
          for (int i = 0; i < each; i++) {
            mine.add(via.appendCommand(id, "restart", Map.of("writer", writer, "i", i), T0));
          }
          return mine;
        }));
      }
      start.countDown();
      Map<Long, RunCommand> returned = new HashMap<>();
      for (Future<List<RunCommand>> f : results) {
        List<RunCommand> mine = f.get();
        assertThat(mine).extracting(RunCommand::seq).as("one writer's commands are numbered in its order")
            .isSorted();
        for (RunCommand c : mine) {
          assertThat(returned.put(c.seq(), c)).as("seq %s returned twice", c.seq()).isNull();
        }
      }
      List<RunCommand> stored = store.commands(id);
      assertThat(stored).extracting(RunCommand::seq)
          .containsExactlyElementsOf(LongStream.rangeClosed(1, (long) writers * each).boxed()
              .toList());
      Set<Map<String, Object>> payloads = new HashSet<>();
      for (RunCommand c : stored) {
        assertThat(c).isEqualTo(returned.get(c.seq()));
        payloads.add(c.payload());
      }
      assertThat(payloads).hasSize(writers * each);
    } finally {
      pool.shutdownNow();
      if (second != null) {
        second.close();
      }
    }
  }

  @Test
  default void theCommandsVersionChangesWhenThisStoreAppends() {
    RunStore store = storeUnderTest();
    long before = store.commandsVersion();
    store.appendCommand(runId(), "restart", Map.of(), T0);
    assertThat(store.commandsVersion()).isNotEqualTo(before);
  }

  @Test
  default void theCommandsVersionChangesWhenAnotherStoreOnTheSameDatabaseAppends() throws Exception {
    RunStore store = storeUnderTest();
    RunStore other = sameDatabaseAgain();
    assumeTrue(other != null, "only a durable store is shared by processes");
    try (other) {
      String id = runId();
      for (int round = 0; round < 3; round++) {
        long before = store.commandsVersion();
        RunCommand c = other.appendCommand(id, "restart", Map.of("round", round), T0);
        awaitTrue(() -> store.commandsVersion() != before, Duration.ofSeconds(30),
            "the commands version did not change after an append by another store");
        assertThat(store.pendingCommands(id)).contains(c);
      }
    }
  }

  /** Polls until {@code condition} holds; fails with {@code message} after {@code limit}. */
  static void awaitTrue(BooleanSupplier condition, Duration limit, String message) throws InterruptedException {
    long end = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError(message + " within " + limit);
      }
      Thread.sleep(10);
    }
  }
}
