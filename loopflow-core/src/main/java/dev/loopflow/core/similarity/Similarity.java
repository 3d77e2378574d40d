package dev.loopflow.core.similarity;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The {@code stable_output} rule: how alike two successive pass outputs of a loop are.
 *
 * <p>Each value becomes text ({@link #text}), is cut to its first {@value #MAX_CHARS} chars, and the two texts are
 * compared with {@link Levenshtein#similarity}: {@code 1 - distance / max(length)}, 1.0 when both are empty.
 */
public final class Similarity {
  /** Only this many leading UTF-16 chars of each text are compared, which bounds the cost of one comparison. */
  public static final int MAX_CHARS = 10_000;

  // Keys are sorted so that two maps holding the same entries in a different order compare as identical text.
  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .addModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .build();

  private Similarity() {}

  /** The similarity in [0, 1] of two pass outputs under the {@code stable_output} rule. */
  public static double of(Object a, Object b) {
    return Levenshtein.similarity(cut(text(a)), cut(text(b)));
  }

  /**
   * Exactly {@code of(a, b) >= threshold}, but stops comparing as soon as the threshold is out of reach, so a pair
   * of very different outputs costs little.
   */
  public static boolean atLeast(Object a, Object b, double threshold) {
    String x = cut(text(a));
    String y = cut(text(b));
    int longest = Math.max(x.length(), y.length());
    if (longest == 0) {
      return 1.0 >= threshold;
    }
    int allowed = allowedDistance(longest, threshold);
    return allowed >= 0 && Levenshtein.distanceAtMost(x, y, allowed) <= allowed;
  }

  /**
   * Exactly {@code of(a, b) > threshold}: the {@code stable_output} rule (a loop stops once two consecutive outputs
   * are more similar than its threshold, never when they are exactly as similar). Like {@link #atLeast}, it stops
   * comparing as soon as the threshold is out of reach.
   */
  public static boolean exceeds(Object a, Object b, double threshold) {
    String x = cut(text(a));
    String y = cut(text(b));
    int longest = Math.max(x.length(), y.length());
    if (longest == 0) {
      return 1.0 > threshold;
    }
    int allowed = allowedDistance(longest, threshold, true);
    return allowed >= 0 && Levenshtein.distanceAtMost(x, y, allowed) <= allowed;
  }

  static int allowedDistance(int longest, double threshold) {
    return allowedDistance(longest, threshold, false);
  }

  /**
   * The largest distance whose similarity still reaches {@code threshold} (with {@code strictly}: is above it), or
   * -1 if none does. Starts from
   * {@code floor((1 - t) * longest)} and then tests the very expression {@link #of} evaluates, because the rounding
   * of {@code 1 - t} and of the division can put the real boundary one step away from the estimate. The
   * similarity only falls as the distance grows, so the adjusted value is exact (a NaN threshold or one above 1
   * ends at -1, as no similarity compares {@code >=} to it).
   */
  static int allowedDistance(int longest, double threshold, boolean strictly) {
    double estimate = Math.floor((1.0 - threshold) * longest);
    int d = (int) Math.max(-1, Math.min(longest, estimate));
    while (d < longest && passes(Levenshtein.similarity(d + 1, longest), threshold, strictly)) {
      d++;
    }
    while (d >= 0 && !passes(Levenshtein.similarity(d, longest), threshold, strictly)) {
      d--;
    }
    return d;
  }

  private static boolean passes(double similarity, double threshold, boolean strictly) {
    return strictly ? similarity > threshold : similarity >= threshold;
  }

  /**
   * The text a value is compared as: a string as it is, null as the empty string, anything else as compact JSON
   * with the keys of every object sorted.
   */
  public static String text(Object value) {
    if (value == null) {
      return "";
    }
    if (value instanceof String s) {
      return s;
    }
    try {
      // records, beans and JSON trees serialize their fields in declaration or insertion order; as plain maps
      // and lists they are sorted like any other map
      Object plain = MAPPER.convertValue(value, Object.class);
      return MAPPER.writeValueAsString(plain);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      // a value Jackson cannot represent still has to be compared as something stable
      return String.valueOf(value);
    }
  }

  private static String cut(String s) {
    return s.length() <= MAX_CHARS ? s : s.substring(0, MAX_CHARS);
  }
}
