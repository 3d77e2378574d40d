package dev.loopflow.bench;

import dev.loopflow.core.similarity.Levenshtein;
import dev.loopflow.core.similarity.Similarity;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.commons.text.similarity.LevenshteinDistance;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The {@code stable_output} comparison: loopflow's {@link Levenshtein#distance} against Commons Text's unbounded
 * {@link LevenshteinDistance} on the same inputs, and {@link Similarity#atLeast} at the 0.95 threshold, which may
 * stop as soon as the threshold is out of reach.
 *
 * <p>Inputs are fixed by a seed: two unrelated random 10,000-char texts over 26 letters and space; a 10,000-char
 * text and a copy with about 2% random edits (insertions, deletions, substitutions at random places); and two
 * unrelated random 1,000-char texts.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SimilarityBenchmark {
  private static final String LETTERS = "abcdefghijklmnopqrstuvwxyz ";
  private static final LevenshteinDistance COMMONS = LevenshteinDistance.getDefaultInstance();

  private String random10kA;
  private String random10kB;
  private String near10kA;
  private String near10kB;
  private String random1kA;
  private String random1kB;

  @Setup
  public void setUp() {
    Random rnd = new Random(20240601L);
    random10kA = random(rnd, 10_000);
    random10kB = random(rnd, 10_000);
    near10kA = random(rnd, 10_000);
    near10kB = edit(rnd, near10kA, 200);
    random1kA = random(rnd, 1_000);
    random1kB = random(rnd, 1_000);
  }

  @Benchmark
  public int random10k_loopflow() {
    return Levenshtein.distance(random10kA, random10kB);
  }

  @Benchmark
  public int random10k_commonsText() {
    return COMMONS.apply(random10kA, random10kB);
  }

  @Benchmark
  public int nearDuplicate10k_loopflow() {
    return Levenshtein.distance(near10kA, near10kB);
  }

  @Benchmark
  public int nearDuplicate10k_commonsText() {
    return COMMONS.apply(near10kA, near10kB);
  }

  @Benchmark
  public int random1k_loopflow() {
    return Levenshtein.distance(random1kA, random1kB);
  }

  @Benchmark
  public int random1k_commonsText() {
    return COMMONS.apply(random1kA, random1kB);
  }

  @Benchmark
  public boolean atLeast95_nearDuplicate10k_loopflow() {
    return Similarity.atLeast(near10kA, near10kB, 0.95);
  }

  @Benchmark
  public boolean atLeast95_random10k_loopflow() {
    return Similarity.atLeast(random10kA, random10kB, 0.95);
  }

  private static String random(Random rnd, int length) {
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append(LETTERS.charAt(rnd.nextInt(LETTERS.length())));
    }
    return sb.toString();
  }

  private static String edit(Random rnd, String text, int edits) {
    StringBuilder sb = new StringBuilder(text);
    for (int e = 0; e < edits; e++) {
      char c = LETTERS.charAt(rnd.nextInt(LETTERS.length()));
      switch (rnd.nextInt(3)) {
        case 0 -> sb.insert(rnd.nextInt(sb.length() + 1), c);
        case 1 -> sb.deleteCharAt(rnd.nextInt(sb.length()));
        default -> sb.setCharAt(rnd.nextInt(sb.length()), c);
      }
    }
    return sb.toString();
  }
}
