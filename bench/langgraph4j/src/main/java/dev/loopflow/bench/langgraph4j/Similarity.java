package dev.loopflow.bench.langgraph4j;

import java.util.Random;
import org.apache.commons.text.similarity.LevenshteinDistance;

/**
 * W5: one Commons Text Levenshtein distance between two random texts over {@code a-z} and space, the check
 * behind loopflow's {@code stable_output} loops, which LangGraph4j has no counterpart for.
 *
 * <p>The seed and generator are those of {@code dev.loopflow.bench.SimilarityBenchmark}, so at the default length
 * of 10,000 the texts are the very ones loopflow's JMH benchmark compares.
 */
final class Similarity implements Workload {

  private static final long SEED = 20240601L;
  private static final String LETTERS = "abcdefghijklmnopqrstuvwxyz ";
  private static final LevenshteinDistance COMMONS = LevenshteinDistance.getDefaultInstance();

  private final String a;
  private final String b;
  private int firstDistance = -1;

  Similarity(int length) {
    Random random = new Random(SEED);
    this.a = random(random, length);
    this.b = random(random, length);
  }

  @Override
  public Measurement run(String label) {
    long start = System.nanoTime();
    int distance = COMMONS.apply(a, b);
    long wall = System.nanoTime() - start;

    // Also keeps the JIT from discarding the call: its result is used.
    Workload.check(distance > 0 && distance <= Math.max(a.length(), b.length()),
        "distance %d outside (0, %d]", distance, Math.max(a.length(), b.length()));
    if (firstDistance < 0) {
      firstDistance = distance;
    }
    Workload.check(distance == firstDistance, "distance %d differs from the first repetition's %d", distance,
        firstDistance);
    return Measurement.of(wall, 1);
  }

  private static String random(Random random, int length) {
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      text.append(LETTERS.charAt(random.nextInt(LETTERS.length())));
    }
    return text.toString();
  }
}
