package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.store.MemoryEntry;
import dev.loopflow.core.store.RunStore;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shared-memory part of the {@link RunStore} contract: put replaces, get, list and delete by key prefix (matched
 * as text, whatever characters it holds), keys in code point order, bytes kept exactly, scopes and namespaces apart,
 * and the limits. {@link RunStoreContract} runs it on every store.
 */
public interface SharedMemoryContract {
  Instant T0 = Instant.parse("2026-11-22T10:15:30.123456789Z");
  int VALUE_LIMIT = 16 * 1024 * 1024;
  int DOCUMENT_LIMIT = 64 * 1024;

  /** The store under test, open. */
  RunStore storeUnderTest();

  /** A second store on the same database (a second process); null when the store is not durable. */
  RunStore sameDatabaseAgain() throws Exception;

  /** A scope no other test uses, so tests sharing a database never see each other's entries. */
  private static String scope() {
    return "run_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
  }

  private static MemoryEntry entry(String scope, String namespace, String key, byte[] value) {
    return new MemoryEntry(scope, namespace, key, value, false, Map.of(), T0);
  }

  /** An entry as comparable data (MemoryEntry compares its byte array by identity). */
  private static List<Object> view(MemoryEntry e) {
    return List.of(e.scope(), e.namespace(), e.key(), HexFormat.of().formatHex(e.value()), e.compressed(),
        e.metadata(), e.storedAt());
  }

  private static List<List<Object>> views(List<MemoryEntry> entries) {
    return entries.stream().map(SharedMemoryContract::view).toList();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The order durable stores sort keys in: by Unicode code point (the order of their UTF-8 bytes). */
  private static int byCodePoint(String a, String b) {
    return Arrays.compareUnsigned(bytes(a), bytes(b));
  }

  @Test
  default void aValueIsReadBackWithEveryField() throws Exception {
    RunStore store = storeUnderTest();
    String scope = scope();
    MemoryEntry e = new MemoryEntry(scope, "WORKFLOW", "stage-1-output", bytes("the full output"), true,
        Map.of("type", "stage_output", "stored_at", "2026-11-22T10:15:30Z", "full_size", "15", "agent_id",
            "discover", "odd", "quote ' \" \\ 😀 \u0000 \uD800"), T0);
    store.putMemory(e);
    assertThat(store.getMemory(scope, "WORKFLOW", "stage-1-output")).map(SharedMemoryContract::view)
        .contains(view(e));
    assertThat(store.getMemory(scope, "WORKFLOW", "stage-2-output")).isEmpty();
    assertThat(store.getMemory(scope(), "WORKFLOW", "stage-1-output")).isEmpty();
    RunStore again = sameDatabaseAgain();
    if (again != null) {
      try (again) {
        assertThat(again.getMemory(scope, "WORKFLOW", "stage-1-output")).map(SharedMemoryContract::view)
            .contains(view(e));
      }
    }
  }

  @Test
  default void putReplacesValueFlagMetadataAndTime() {
    RunStore store = storeUnderTest();
    String scope = scope();
    store.putMemory(new MemoryEntry(scope, "GLOBAL", "k", bytes("first, longer value"), true,
        Map.of("a", "1", "b", "2"), T0));
    MemoryEntry second = new MemoryEntry(scope, "GLOBAL", "k", bytes("2nd"), false, Map.of("c", "3"),
        T0.plusSeconds(1));
    store.putMemory(second);
    assertThat(store.getMemory(scope, "GLOBAL", "k")).map(SharedMemoryContract::view).contains(view(second));
    assertThat(store.listMemory(scope, "GLOBAL", "")).hasSize(1);
  }

  static Stream<Arguments> binaryValues() {
    byte[] all = new byte[256];
    for (int i = 0; i < 256; i++) {
      all[i] = (byte) i;
    }
    byte[] reversed = new byte[512];
    for (int i = 0; i < 512; i++) {
      reversed[i] = (byte) (255 - i % 256);
    }
    byte[] random = new byte[1 << 20];
    new Random(42).nextBytes(random);
    return Stream.of(
        Arguments.of("every byte value", all),
        Arguments.of("every byte value, descending, twice", reversed),
        Arguments.of("empty", new byte[0]),
        Arguments.of("one NUL", new byte[] {0}),
        Arguments.of("invalid UTF-8", new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF, (byte) 0xFE}),
        Arguments.of("gzip magic", new byte[] {0x1f, (byte) 0x8b, 8, 0}),
        Arguments.of("text that looks like hex escapes", bytes("\\x00\\\\x41")),
        Arguments.of("a mebibyte of random bytes", random));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.loopflow.testkit.SharedMemoryContract#binaryValues")
  default void valuesAreKeptByteForByte(String what, byte[] value) throws Exception {
    RunStore store = storeUnderTest();
    String scope = scope();
    MemoryEntry e = new MemoryEntry(scope, "AGENT", "k", value.clone(), true, Map.of(), T0);
    store.putMemory(e);
    assertThat(store.getMemory(scope, "AGENT", "k")).get().extracting(MemoryEntry::value).isEqualTo(value);
    assertThat(store.listMemory(scope, "AGENT", "")).singleElement().extracting(MemoryEntry::value)
        .isEqualTo(value);
    RunStore again = sameDatabaseAgain();
    if (again != null) {
      try (again) {
        assertThat(again.getMemory(scope, "AGENT", "k")).get().extracting(MemoryEntry::value).isEqualTo(value);
      }
    }
  }

  @Test
  default void aCallerChangingItsArrayChangesNothingStored_bugInMemoryStoreKeptTheCallersArray() {
    RunStore store = storeUnderTest();
    String scope = scope();
    byte[] value = {1, 2, 3};
    store.putMemory(entry(scope, "SESSION", "k", value));
    value[0] = 9;
    store.getMemory(scope, "SESSION", "k").orElseThrow().value()[1] = 9;
    store.listMemory(scope, "SESSION", "").get(0).value()[2] = 9;
    assertThat(store.getMemory(scope, "SESSION", "k")).get().extracting(MemoryEntry::value)
        .isEqualTo(new byte[] {1, 2, 3});
  }

  /** Keys a workflow may use; several hold characters that SQL LIKE, escapes or quoting treat specially. */
  static List<String> hostileKeys() {
    return List.of("a", "ab", "abc", "a%", "a%b", "a%%", "a_", "a_b", "a__", "a\\", "a\\%", "a\\_", "a\\\\", "a'",
        "a''", "a\"", "a;--", "%", "_", "\\", "'", "''", "\"", "*", "?", "[a]", "[!a]", "^a$", ".*", "A", "AB",
        "", " ", " a", "a ", "\t", "\n", "a\nb", "é", "e\u0301", "日本", "日本語", "😀", "😀😀", "\uFFFF",
        "\uE000", "ab\u200Bc", "Ａ", "stage-1-output", "stage-10-output", "stage-1-output-extra", "%stage",
        "k".repeat(1024), "é".repeat(512), "😀".repeat(256), "é".repeat(511) + "a");
  }

  static Stream<Arguments> hostilePrefixes() {
    List<String> prefixes = new ArrayList<>(hostileKeys());
    // Prefixes that are no key: a wildcard that would match everything, escapes, and a longer-than-any-key prefix.
    prefixes.addAll(List.of("%%", "%_", "_%", "a%c", "a_c", "\\%", "\\_", "a\\b", "k".repeat(1024 - 1) + "%",
        "zz", "b"));
    return prefixes.stream().distinct().map(p -> Arguments.of(printable(p), p));
  }

  private static String printable(String s) {
    String shown = s.length() > 24 ? s.substring(0, 12) + "…(" + s.length() + " chars)" : s;
    StringBuilder out = new StringBuilder("\"");
    shown.codePoints().forEach(cp -> out.append(cp < 0x20 ? String.format("\\u%04x", cp) : Character.toString(cp)));
    return out.append('"').toString();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.loopflow.testkit.SharedMemoryContract#hostilePrefixes")
  default void aPrefixIsMatchedAsTextNeverAsAPattern(String shown, String prefix) {
    RunStore store = storeUnderTest();
    String scope = scope();
    List<String> keys = hostileKeys();
    for (String k : keys) {
      store.putMemory(entry(scope, "GLOBAL", k, bytes(k)));
    }
    List<String> expected = keys.stream().filter(k -> k.startsWith(prefix))
        .sorted(SharedMemoryContract::byCodePoint).toList();
    List<MemoryEntry> listed = store.listMemory(scope, "GLOBAL", prefix);
    assertThat(listed).extracting(MemoryEntry::key).containsExactlyElementsOf(expected);
    for (MemoryEntry e : listed) {
      assertThat(e.value()).isEqualTo(bytes(e.key()));
    }

    assertThat(store.deleteMemory(scope, "GLOBAL", prefix)).isEqualTo(expected.size());
    List<String> rest = keys.stream().filter(k -> !k.startsWith(prefix)).sorted(SharedMemoryContract::byCodePoint)
        .toList();
    assertThat(store.listMemory(scope, "GLOBAL", "")).extracting(MemoryEntry::key).containsExactlyElementsOf(rest);
    assertThat(store.deleteMemory(scope, "GLOBAL", prefix)).isZero();
  }

  @Test
  default void everyHostileKeyIsItsOwnEntry() {
    RunStore store = storeUnderTest();
    String scope = scope();
    List<String> keys = hostileKeys();
    for (String k : keys) {
      store.putMemory(entry(scope, "GLOBAL", k, bytes("value of " + k)));
    }
    for (String k : keys) {
      assertThat(store.getMemory(scope, "GLOBAL", k)).as(printable(k)).get().extracting(MemoryEntry::key,
          e -> new String(e.value(), StandardCharsets.UTF_8)).containsExactly(k, "value of " + k);
    }
    assertThat(store.getMemory(scope, "GLOBAL", "a%c")).isEmpty();
    assertThat(store.getMemory(scope, "GLOBAL", "A%")).isEmpty();
    assertThat(store.listMemory(scope, "GLOBAL", "")).hasSize(keys.size());
  }

  /** UTF-16 order would put U+1F600 (a surrogate pair) before U+E000 and U+FFFF; code point order puts it last. */
  @Test
  default void keysAreListedInCodePointOrder_bugInMemoryStoreSortedByUtf16Units() {
    RunStore store = storeUnderTest();
    String scope = scope();
    List<String> order = List.of("", "B", "Z", "a", "b", "é", "\uE000", "\uFFFF", "😀", "😀a");
    List<String> shuffled = new ArrayList<>(order);
    Collections.shuffle(shuffled, new Random(7));
    for (String k : shuffled) {
      store.putMemory(entry(scope, "AGENT", k, new byte[0]));
    }
    assertThat(store.listMemory(scope, "AGENT", "")).extracting(MemoryEntry::key).containsExactlyElementsOf(order);
  }

  @Test
  default void scopesAndNamespacesAreApart() {
    RunStore store = storeUnderTest();
    String run = scope();
    // Pairs whose concatenations (with or without a separator) coincide, and scopes that prefix one another.
    List<String[]> places = List.of(new String[] {run, "SESSION"}, new String[] {run, "SESSION2"},
        new String[] {run + "0", "SESSION"}, new String[] {run + "/a", "b"}, new String[] {run, "a/b"},
        new String[] {run + "/session/x", "SESSION"}, new String[] {run, ""}, new String[] {run + "%", "SESSION"},
        new String[] {run + "_", "SESSION"});
    for (int i = 0; i < places.size(); i++) {
      store.putMemory(entry(places.get(i)[0], places.get(i)[1], "k", new byte[] {(byte) i}));
    }
    for (int i = 0; i < places.size(); i++) {
      String[] p = places.get(i);
      assertThat(store.listMemory(p[0], p[1], "")).singleElement().extracting(MemoryEntry::value)
          .isEqualTo(new byte[] {(byte) i});
    }
    assertThat(store.deleteMemory(run, "SESSION", "")).isEqualTo(1);
    assertThat(store.getMemory(run, "SESSION", "k")).isEmpty();
    for (int i = 1; i < places.size(); i++) {
      String[] p = places.get(i);
      assertThat(store.getMemory(p[0], p[1], "k")).as(p[0] + " / " + p[1]).isPresent();
    }
    assertThat(store.listMemory(run, "session", "")).as("namespaces are case-sensitive").isEmpty();
  }

  @Test
  default void theGlobalScopeIsTheEmptyString() {
    RunStore store = storeUnderTest();
    String key = "global-" + UUID.randomUUID();
    store.putMemory(entry("", "GLOBAL", key, new byte[] {7}));
    assertThat(store.getMemory("", "GLOBAL", key)).isPresent();
    assertThat(store.listMemory("", "GLOBAL", key)).hasSize(1);
    assertThat(store.deleteMemory("", "GLOBAL", key)).isEqualTo(1);
  }

  @Test
  default void nothingStoredReadsAsEmpty() {
    RunStore store = storeUnderTest();
    String scope = scope();
    assertThat(store.getMemory(scope, "GLOBAL", "k")).isEmpty();
    assertThat(store.listMemory(scope, "GLOBAL", "")).isEmpty();
    assertThat(store.deleteMemory(scope, "GLOBAL", "")).isZero();
  }

  @Test
  default void aValueMayBeSixteenMebibytes() {
    RunStore store = storeUnderTest();
    String scope = scope();
    byte[] atLimit = new byte[VALUE_LIMIT];
    atLimit[0] = 1;
    atLimit[VALUE_LIMIT - 1] = (byte) 0xFF;
    store.putMemory(entry(scope, "WORKFLOW", "big", atLimit));
    byte[] back = store.getMemory(scope, "WORKFLOW", "big").orElseThrow().value();
    assertThat(back).hasSize(VALUE_LIMIT);
    assertThat(Arrays.equals(back, atLimit)).isTrue();

    assertThatThrownBy(() -> store.putMemory(entry(scope, "WORKFLOW", "bigger", new byte[VALUE_LIMIT + 1])))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shared memory value")
        .hasMessageContaining(String.valueOf(VALUE_LIMIT + 1)).hasMessageContaining(String.valueOf(VALUE_LIMIT));
    assertThat(store.getMemory(scope, "WORKFLOW", "bigger")).isEmpty();
  }

  @Test
  default void namesAtTheirLimitsAreKept() {
    RunStore store = storeUnderTest();
    // The longest scope, namespace and key together: a durable store's key must hold them.
    String scope = scope() + "s".repeat(1024 - 20);
    String namespace = "😀".repeat(64);
    String key = "é".repeat(512);
    MemoryEntry e = entry(scope, namespace, key, new byte[] {1});
    store.putMemory(e);
    assertThat(store.getMemory(scope, namespace, key)).map(SharedMemoryContract::view).contains(view(e));
    assertThat(store.listMemory(scope, namespace, key)).hasSize(1);
    assertThat(store.deleteMemory(scope, namespace, key)).isEqualTo(1);
  }

  static Stream<Arguments> badPlaces() {
    String ok = "run_bad_names";
    return Stream.of(
        Arguments.of("key over 1024 bytes", ok, "GLOBAL", "k".repeat(1025)),
        Arguments.of("multi-byte key over 1024 bytes", ok, "GLOBAL", "é".repeat(512) + "x"),
        Arguments.of("scope over 1024 bytes", "s".repeat(1025), "GLOBAL", "k"),
        Arguments.of("namespace over 256 bytes", ok, "N".repeat(257), "k"),
        Arguments.of("NUL in the key", ok, "GLOBAL", "a\u0000b"),
        Arguments.of("NUL alone as key", ok, "GLOBAL", "\u0000"),
        Arguments.of("NUL in the scope", ok + "\u0000", "GLOBAL", "k"),
        Arguments.of("NUL in the namespace", ok, "GLOBAL\u0000", "k"),
        Arguments.of("unpaired high surrogate in the key", ok, "GLOBAL", "a\uD83D"),
        Arguments.of("unpaired low surrogate in the key", ok, "GLOBAL", "\uDE00a"),
        Arguments.of("reversed surrogate pair in the key", ok, "GLOBAL", "\uDE00\uD83D"),
        Arguments.of("unpaired surrogate in the scope", "\uD800", "GLOBAL", "k"),
        Arguments.of("unpaired surrogate in the namespace", ok, "\uDBFF", "k"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.loopflow.testkit.SharedMemoryContract#badPlaces")
  default void namesTheStoreCannotKeepExactlyAreRefused(String what, String scope, String namespace, String key) {
    RunStore store = storeUnderTest();
    assertThatThrownBy(() -> store.putMemory(entry(scope, namespace, key, new byte[] {1})))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.getMemory(scope, namespace, key)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.listMemory(scope, namespace, key)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.deleteMemory(scope, namespace, key)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  default void metadataIsLimitedToSixtyFourKibibytesOfJson() {
    RunStore store = storeUnderTest();
    String scope = scope();
    // {"m":"xxx..."} is the string plus 8 bytes.
    Map<String, String> atLimit = Map.of("m", "x".repeat(DOCUMENT_LIMIT - 8));
    store.putMemory(new MemoryEntry(scope, "GLOBAL", "k", new byte[0], false, atLimit, T0));
    assertThat(store.getMemory(scope, "GLOBAL", "k")).get().extracting(MemoryEntry::metadata).isEqualTo(atLimit);
    assertThatThrownBy(() -> store.putMemory(new MemoryEntry(scope, "GLOBAL", "k2", new byte[0], false,
        Map.of("m", "x".repeat(DOCUMENT_LIMIT - 7)), T0))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shared memory metadata");
    assertThat(store.getMemory(scope, "GLOBAL", "k2")).isEmpty();
  }

  @Test
  default void listingIsConsistentWithGet() {
    RunStore store = storeUnderTest();
    String scope = scope();
    for (String k : List.of("x1", "x2", "x10", "y")) {
      store.putMemory(entry(scope, "SESSION", k, bytes(k)));
    }
    for (MemoryEntry listed : store.listMemory(scope, "SESSION", "x")) {
      Optional<MemoryEntry> got = store.getMemory(scope, "SESSION", listed.key());
      assertThat(got).map(SharedMemoryContract::view).contains(view(listed));
    }
    assertThat(store.listMemory(scope, "SESSION", "x")).extracting(MemoryEntry::key)
        .isSortedAccordingTo(Comparator.naturalOrder()).containsExactly("x1", "x10", "x2");
  }
}
