package dev.loopflow.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.error.NodePosition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The journal's text of an event's time is {@link Instant#toString()}'s, written and read without the general
 * formatter.
 */
class InstantTextTest {
  private static final long YEAR_0 = -62_167_219_200L;
  private static final long YEAR_10000 = 253_402_300_800L;

  @Test
  void everyInstantIsWrittenAsInstantToStringWritesIt() {
    Random r = new Random(42);
    List<Long> seconds = new ArrayList<>(List.of(0L, -1L, 1L, YEAR_0 - 1, YEAR_0, YEAR_0 + 1, YEAR_10000 - 1,
        YEAR_10000, YEAR_10000 + 1, Instant.MIN.getEpochSecond(), Instant.MAX.getEpochSecond(),
        951_782_400L /* 2000-02-29 */, 951_868_800L, -2_203_891_200L /* 1900-03-01 */, 4_107_456_000L /* 2100-02-28 */,
        4_107_542_400L, 1_795_910_307L, -62_135_596_800L /* 0001-01-01 */, -30_610_224_000L /* 1000-01-01 */,
        -30_610_224_001L, 253_370_764_800L /* 9999-01-01 */));
    for (int i = 0; i < 20_000; i++) {
      seconds.add(switch (i % 4) {
        case 0 -> 1_600_000_000L + r.nextInt(400_000_000); // this century
        case 1 -> YEAR_0 + (long) (r.nextDouble() * (YEAR_10000 - YEAR_0)); // any four-digit year
        case 2 -> (long) ((r.nextDouble() - 0.5) * 2 * Instant.MAX.getEpochSecond()); // signed, five-digit years
        default -> (r.nextBoolean() ? YEAR_0 : YEAR_10000) + r.nextInt(200_000) - 100_000; // around the edges
      });
    }
    int[] nanos = {0, 1, 9, 10, 100, 999, 1_000, 10_000, 100_000, 120_000, 999_000, 1_000_000, 10_000_000,
        100_000_000, 120_000_000, 123_000_000, 123_400_000, 123_450_000, 123_456_000, 123_456_700, 123_456_789,
        999_999_999, 500_000_001, 1_001_000};
    int checked = 0;
    for (long s : seconds) {
      for (int n : new int[] {nanos[r.nextInt(nanos.length)], r.nextInt(1_000_000_000), r.nextInt(1_000) * 1_000_000,
          r.nextInt(1_000_000) * 1_000}) {
        Instant at = Instant.ofEpochSecond(s, n);
        assertThat(InstantText.of(at)).as("%s", at).isEqualTo(at.toString());
        checked++;
      }
    }
    for (int n : nanos) {
      Instant at = Instant.ofEpochSecond(1_795_910_307L, n); // the same second again and again
      assertThat(InstantText.of(at)).isEqualTo(at.toString());
    }
    assertThat(checked).isEqualTo(seconds.size() * 4);
  }

  @Test
  void everyTextIsReadAsInstantParseReadsIt() {
    Random r = new Random(7);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      long s = i % 2 == 0 ? 1_600_000_000L + r.nextInt(400_000_000)
          : YEAR_0 + (long) (r.nextDouble() * (YEAR_10000 - YEAR_0));
      Instant at = Instant.ofEpochSecond(s, i % 3 == 0 ? 0 : r.nextInt(1_000_000_000));
      texts.add(at.toString());
      texts.add(InstantText.of(at));
    }
    // Written by others, or damaged: each must be read exactly as Instant.parse reads it, or refused as it refuses.
    texts.addAll(List.of("2026-11-28T21:09:57Z", "2026-11-28T21:09:57.8Z", "2026-11-28T21:09:57.80807565Z",
        "2026-11-28T21:09:57.808075652Z", "2026-11-28T21:09:57.8080756521Z", "2026-11-28T21:09:57.Z",
        "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2000-02-29T23:59:59.999999999Z",
        "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z",
        "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z", "2026-12-31T23:59:60Z", "2026-06-30T23:59:60Z",
        "2026-01-01T00:00:00+01:00", "2026-01-01T00:00:00z", "2026-01-01t00:00:00Z", "2026-01-01 00:00:00Z",
        "+12026-01-01T00:00:00Z", "-0001-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
        "2026-1-01T00:00:00Z", "2026-01-01T00:00:0Z", "2026-01-01T00:00:00", "20260101T000000Z", "", "Z",
        "2026-01-01T00:00:00.-1Z", "2026-01-01T00:00:00.1a2Z", "2026-01-01T0a:00:00Z", "2026-01-01T00:00:00.１Z",
        "２026-01-01T00:00:00Z", "2026-01-01T00:00:00,5Z", "2026-01-01T00:00:00.5 Z", " 2026-01-01T00:00:00Z"));
    for (String t : texts) {
      Object expected;
      try {
        expected = Instant.parse(t);
      } catch (RuntimeException e) {
        expected = e.getClass();
      }
      Object actual;
      try {
        actual = InstantText.parse(t);
      } catch (RuntimeException e) {
        actual = e.getClass();
      }
      assertThat(actual).as("'%s'", t).isEqualTo(expected);
    }
  }

  @Test
  void eventsWriteTheirTimeThroughTheKeptSecond() {
    Instant at = Instant.ofEpochSecond(1_795_910_000L + new Random().nextInt(100_000), 123_000_000);
    Event e = new Event.NodeStarted("run_1", 1, at, NodePosition.top("a"), "script", 1);

    assertThat(Events.toMap(e)).containsEntry("at", at.toString());
    assertThat(InstantText.remembers(at.getEpochSecond())).as("the event's second is the one kept").isTrue();
  }
}
