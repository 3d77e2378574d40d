package dev.loopflow.core.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The "nothing to mask" verdicts a redactor remembers: asking again answers from them, and learning a value makes
 * them stale, so a credential learned later is masked in texts that were clean before.
 */
class RedactorCleanCacheTest {
  private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.[]: \"{}";

  @Test
  void aTextFoundCleanIsRememberedUntilSomethingIsLearned() {
    Redactor r = Redactor.of(List.of());
    String id = "increment";
    assertThat(r.knownClean(id)).isFalse();

    assertThat(r.text(id)).isSameAs(id);
    assertThat(r.knownClean(id)).isTrue();
    assertThat(r.knownClean(new String(id.toCharArray()))).as("remembered by content, not by instance").isTrue();

    r.value(Map.of("api_key", "unrelated-credential-1"));
    assertThat(r.knownClean(id)).as("stale once something is learned").isFalse();
    assertThat(r.text(id)).isSameAs(id);
    assertThat(r.knownClean(id)).isTrue();
  }

  @Test
  void textsWithSomethingToMaskAndLongTextsAreNotRemembered() {
    Redactor r = Redactor.of(List.of("q7Zp2LmX9vR4tW8nK3cY"));
    String dirty = "key q7Zp2LmX9vR4tW8nK3cY";
    String shape = "sk-" + "a".repeat(30);
    String longText = "x".repeat(Redactor.CLEAN_MAX_LENGTH + 1);

    assertThat(r.text(dirty)).isEqualTo("key [redacted]");
    assertThat(r.text(shape)).isEqualTo("[redacted]");
    assertThat(r.text(longText)).isSameAs(longText);

    assertThat(r.knownClean(dirty)).isFalse();
    assertThat(r.knownClean(shape)).isFalse();
    assertThat(r.knownClean(longText)).isFalse();
  }

  /**
   * A corpus of texts is masked, then a credential that occurs in many of them (whole, at either end, cut by an
   * ellipsis, twice, next to token shapes, in texts that collide in the verdicts' slots) is learned, round after
   * round. Each text, asked of the redactor that remembered it clean, must give what a new redactor with the same
   * knowledge gives.
   */
  @Test
  void aCredentialLearnedLaterIsMaskedInTextsSeenCleanBefore() {
    Random random = new Random(7);
    Redactor r = Redactor.of(List.of());
    List<String> learned = new ArrayList<>();
    List<String> corpus = new ArrayList<>();
    for (int round = 0; round < 30; round++) {
      String credential = word(random, 8 + random.nextInt(24));
      corpus.addAll(texts(random, credential));
      // A new redactor with the same knowledge, asked each text once, scans each text.
      Redactor before = fresh(learned);
      for (String t : corpus) {
        String expected = before.text(t);
        assertThat(r.text(t)).as("round %d text %s", round, t).isEqualTo(expected);
        assertThat(r.text(t)).as("round %d text %s asked again", round, t).isEqualTo(expected);
      }
      // Learned as a run learns it: found under a credential-named key in something masked.
      r.value(Map.of(random.nextBoolean() ? "access_token" : "password", credential));
      learned.add(credential);
      Redactor reference = fresh(learned);
      for (String t : corpus) {
        String masked = r.text(t);
        assertThat(masked).as("round %d text %s", round, t).isEqualTo(reference.text(t));
        if (t.contains(credential)) {
          assertThat(masked).doesNotContain(credential);
        }
      }
    }
  }

  @Test
  void aValueLearnedWhileOtherThreadsMaskIsMaskedByAllOfThemAfterwards() throws Exception {
    String credential = "late-credential-0123456789";
    List<String> texts = List.of("prefix " + credential, credential, "..." + credential.substring(4),
        credential.substring(0, 12) + "...", "plain text", "increment", "outer[3].inner[7].increment");
    Redactor r = Redactor.of(List.of());
    CountDownLatch learnedIt = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      threads.add(Thread.ofPlatform().start(() -> {
        try {
          for (int k = 0; k < 2_000; k++) {
            texts.forEach(r::text);
          }
          learnedIt.await();
          for (String t : texts) {
            assertThat(r.text(t)).doesNotContain(credential.substring(4, 12));
          }
        } catch (Throwable e) {
          failure.set(e);
        }
      }));
    }
    Thread.sleep(5);
    r.value(Map.of("token", credential));
    learnedIt.countDown();
    for (Thread t : threads) {
      t.join();
    }
    assertThat(failure.get()).isNull();
  }

  /**
   * A value is masked as if everything it holds under credential names were learned before any of it is masked,
   * though one walk does both: a credential whose key comes after texts, keys and list items holding it is masked
   * in them too. Compared with a redactor that already knew all of it, over generated nested values.
   */
  @Test
  void aValueIsMaskedWithEverythingItTeachesKnownFirst() {
    Random random = new Random(11);
    for (int i = 0; i < 400; i++) {
      List<String> credentials = new ArrayList<>();
      for (int k = 0, n = 1 + random.nextInt(3); k < n; k++) {
        credentials.add("cred" + k + word(random, 8 + random.nextInt(10)).replace(' ', 'x'));
      }
      Object value = nested(random, credentials, 0);
      Redactor knowing = Redactor.of(List.of());
      knowing.value(value); // learns what the value teaches
      Object expected = knowing.value(value);

      Object masked = Redactor.of(List.of()).value(value);

      assertThat(masked).as("value %s", value).isEqualTo(expected);
    }
  }

  private static Object nested(Random random, List<String> credentials, int depth) {
    String credential = credentials.get(random.nextInt(credentials.size()));
    int kind = depth > 3 ? random.nextInt(4) : random.nextInt(7);
    return switch (kind) {
      case 0 -> "text with " + credential + " inside";
      case 1 -> credential;
      case 2 -> random.nextInt(1000);
      case 3 -> word(random, 5);
      case 4 -> {
        List<Object> l = new ArrayList<>();
        for (int k = 0, n = random.nextInt(4); k < n; k++) {
          l.add(nested(random, credentials, depth + 1));
        }
        yield l;
      }
      default -> {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        for (int k = 0, n = 1 + random.nextInt(4); k < n; k++) {
          switch (random.nextInt(5)) {
            case 0 -> m.put(random.nextBoolean() ? "api_key" : "password" + k, credential); // taught here
            case 1 -> m.put("key " + credential + k, nested(random, credentials, depth + 1)); // in a key
            case 2 -> m.put("tokens", List.of(credential, "x")); // a credential-named list
            default -> m.put("field" + k, nested(random, credentials, depth + 1));
          }
        }
        yield m;
      }
    };
  }

  private static Redactor fresh(List<String> learned) {
    Redactor r = Redactor.of(List.of());
    learned.forEach(c -> r.value(Map.of("secret", c)));
    return r;
  }

  private static List<String> texts(Random random, String credential) {
    List<String> out = new ArrayList<>();
    out.add(credential);
    out.add("before " + credential);
    out.add(credential + " after");
    out.add(word(random, 3) + credential + word(random, 3));
    out.add(credential + credential);
    out.add("..." + credential.substring(credential.length() - 6));
    out.add("…" + credential.substring(2));
    out.add(credential.substring(0, Math.max(6, credential.length() - 1)) + "...");
    out.add("{\"value\": \"" + credential + "\"}");
    out.add("Bearer " + credential);
    out.add("outer[" + random.nextInt(1000) + "].inner[" + random.nextInt(100) + "]." + credential);
    out.add(credential.substring(0, 5)); // too short to be a fragment: stays
    for (int i = 0; i < 12; i++) {
      out.add(word(random, 1 + random.nextInt(40)));
    }
    // Texts that share a slot with the credential's texts (same hash): a remembered neighbour must not answer.
    // "Aa" and "BB" hash alike, so these two texts share a slot: one remembered must not answer for the other.
    out.add("Aa" + word(random, 6) + "BB");
    out.add("BB" + out.get(out.size() - 1).substring(2, 8) + "Aa");
    out.add("Aa" + credential + "BB");
    out.add("BB" + credential + "Aa");
    return out;
  }

  private static String word(Random random, int length) {
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
    }
    return sb.toString();
  }
}
