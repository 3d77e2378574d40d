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
      for (int pass = 0; pass < 2; pass++) {
        for (String t : corpus) {
          assertThat(r.text(t)).as("round %d text %s", round, t).isEqualTo(fresh(learned).text(t));
        }
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
