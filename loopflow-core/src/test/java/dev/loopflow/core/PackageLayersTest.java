package dev.loopflow.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.store.RunStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core's packages point one way: jdeps over its compiled classes finds what depends on what.
 *
 * <p>No package cycle is allowed. The rest of the layering is not finished: what is still wrong is listed here, so
 * the build fails on anything new. The lists can only shrink: a dependency that goes away must be taken off its
 * list, or the test fails too, so that what is fixed stays fixed. The aim is no list at all.
 */
class PackageLayersTest {
  private static final String CORE = "dev.loopflow.core";

  /** Packages that depend on no other loopflow package: what everything may use. */
  private static final Set<String> LEAVES = Set.of(CORE + ".error", CORE + ".time");

  /**
   * API packages that still reach into the engine. The facade ({@code dev.loopflow.core}) builds the engine and may;
   * no other API package should.
   */
  private static final Set<String> API_TO_INTERNAL_STILL = Set.of(".secrets -> .internal.yaml");

  /** Main source files over the size limit, with the most lines each may have until it is split. */
  private static final Map<String, Integer> LONG_FILES_STILL = Map.of(
      "loopflow-store-jdbc/src/main/java/dev/loopflow/store/jdbc/JdbcRunStore.java", 1400);
  private static final int MAX_LINES = 600;

  /** package -> the core packages it uses. */
  private static Map<String, Set<String>> uses;

  @BeforeAll
  static void readDependencies(@TempDir Path copy) throws IOException {
    Path classes = Path.of("target", "classes");
    // Without its module descriptor jdeps reads the classes as a plain directory and needs none of the libraries.
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path f : files.toList()) {
        Path to = copy.resolve(classes.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else if (!f.getFileName().toString().equals("module-info.class")) {
          Files.copy(f, to);
        }
      }
    }
    ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc = jdeps.run(new PrintStream(out, true, StandardCharsets.UTF_8), System.err, "-verbose:package",
        copy.toString());
    assertThat(rc).as("jdeps").isZero();
    uses = new TreeMap<>();
    Matcher m = Pattern.compile("^\\s+(dev\\.loopflow\\.core\\S*)\\s+->\\s+(dev\\.loopflow\\.core\\S*)", Pattern.MULTILINE)
        .matcher(out.toString(StandardCharsets.UTF_8));
    while (m.find()) {
      if (!m.group(1).equals(m.group(2))) {
        uses.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(m.group(2));
      }
    }
    assertThat(uses).as("jdeps found the core's packages").containsKey(CORE + ".internal.exec");
  }

  private static String shortName(String pkg) {
    return pkg.equals(CORE) ? "." : pkg.substring(CORE.length());
  }

  @Test
  void theLeavesDependOnNoOtherLoopflowPackage() {
    for (String leaf : LEAVES) {
      assertThat(uses.getOrDefault(leaf, Set.of())).as(leaf).isEmpty();
    }
  }

  @Test
  void noApiPackageButTheFacadeReachesIntoTheEngineBeyondWhatIsListed() {
    Set<String> found = new TreeSet<>();
    uses.forEach((from, to) -> to.stream()
        .filter(t -> !from.startsWith(CORE + ".internal") && !from.equals(CORE) && t.startsWith(CORE + ".internal"))
        .forEach(t -> found.add(shortName(from) + " -> " + shortName(t))));
    assertThat(found).as("API packages using internal ones (take a fixed one off the list)")
        .isEqualTo(new TreeSet<>(API_TO_INTERNAL_STILL));
  }

  @Test
  void noPackagesDependOnEachOther() {
    List<Set<String>> cycles = cycles();
    assertThat(cycles).as("package cycles").isEmpty();
  }

  @Test
  void theRunStoreInterfaceItselfDeclaresAtMostTwelveMethods() {
    assertThat(RunStore.class.getDeclaredMethods()).hasSizeLessThanOrEqualTo(12);
  }

  @Test
  void noMainSourceFileIsLongerThanTheLimitBeyondWhatIsListed() throws IOException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    Map<String, Long> longFiles = new TreeMap<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path module : modules.filter(p -> Files.isDirectory(p.resolve("src/main/java"))).toList()) {
        try (Stream<Path> files = Files.walk(module.resolve("src/main/java"))) {
          for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
            long lines;
            try (Stream<String> l = Files.lines(f)) {
              lines = l.count();
            }
            if (lines > MAX_LINES) {
              longFiles.put(root.relativize(f).toString().replace('\\', '/'), lines);
            }
          }
        }
      }
    }
    assertThat(longFiles.keySet()).as("files over " + MAX_LINES + " lines (take a split one off the list)")
        .isEqualTo(new TreeSet<>(LONG_FILES_STILL.keySet()));
    longFiles.forEach((f, n) -> assertThat(n).as(f + " may not grow").isLessThanOrEqualTo(LONG_FILES_STILL.get(f)));
  }

  /** The strongly connected components of more than one package (Tarjan's algorithm). */
  private static List<Set<String>> cycles() {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new HashSet<>();
    List<Set<String>> out = new java.util.ArrayList<>();
    for (String v : uses.keySet()) {
      if (!index.containsKey(v)) {
        connect(v, index, low, stack, onStack, out);
      }
    }
    return out;
  }

  private static void connect(String v, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
      Set<String> onStack, List<Set<String>> out) {
    index.put(v, index.size());
    low.put(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (String w : uses.getOrDefault(v, Set.of())) {
      if (!index.containsKey(w)) {
        connect(w, index, low, stack, onStack, out);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> c = new TreeSet<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        c.add(w);
      } while (!w.equals(v));
      if (c.size() > 1) {
        out.add(c);
      }
    }
  }
}
