package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.store.RunStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
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
 * Every module's packages point one way: jdeps over the compiled classes of every module finds what depends on
 * what. It runs here, in the module built after all the others, so that it sees them all.
 *
 * <ul>
 *   <li>No package cycle, in any module.
 *   <li>No API package uses an internal one ({@code ...internal...}), except a module's facade (the package just
 *       above its {@code internal} packages, such as {@code dev.loopflow.core}), which builds the engine.
 *   <li>The leaf packages depend on no loopflow package but each other.
 *   <li>No main source file is longer than {@value #MAX_LINES} lines.
 * </ul>
 */
class PackageLayersTest {
  private static final String CORE = "dev.loopflow.core";

  /** The modules whose classes are read, each built before this one. */
  private static final List<String> MODULES = List.of("loopflow-core", "loopflow-llm", "loopflow-testkit",
      "loopflow-store-jdbc", "loopflow-observability", "loopflow-server", "loopflow-cli");

  /** Packages that depend on no loopflow package but each other: what everything may use. */
  private static final Set<String> LEAVES = Set.of(CORE + ".error", CORE + ".time", CORE + ".yaml");

  private static final int MAX_LINES = 600;

  /** package -> the loopflow packages it uses. */
  private static Map<String, Set<String>> uses;

  @BeforeAll
  static void readDependencies(@TempDir Path copy) throws IOException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    List<String> args = new ArrayList<>(List.of("-verbose:package"));
    for (String module : MODULES) {
      Path classes = root.resolve(module).resolve("target/classes");
      assertThat(classes.resolve("dev")).as(module + " is compiled before this module").isDirectory();
      // Without its module descriptor jdeps reads the classes as a plain directory and needs none of the libraries.
      Path to = copy.resolve(module);
      try (Stream<Path> files = Files.walk(classes)) {
        for (Path f : files.toList()) {
          Path target = to.resolve(classes.relativize(f).toString());
          if (Files.isDirectory(f)) {
            Files.createDirectories(target);
          } else if (!f.getFileName().toString().equals("module-info.class")) {
            Files.copy(f, target);
          }
        }
      }
      args.add(to.toString());
    }
    ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc = jdeps.run(new PrintStream(out, true, StandardCharsets.UTF_8), System.err, args.toArray(String[]::new));
    assertThat(rc).as("jdeps").isZero();
    uses = new TreeMap<>();
    Matcher m = Pattern.compile("^\\s+(dev\\.loopflow\\.\\S*)\\s+->\\s+(dev\\.loopflow\\.\\S*)", Pattern.MULTILINE)
        .matcher(out.toString(StandardCharsets.UTF_8));
    while (m.find()) {
      if (!m.group(1).equals(m.group(2))) {
        uses.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(m.group(2));
      }
    }
    assertThat(uses).as("jdeps found every module's packages").containsKeys(CORE + ".internal.exec",
        "dev.loopflow.llm", "dev.loopflow.store.jdbc", "dev.loopflow.server.internal", "dev.loopflow.cli");
  }

  @Test
  void theLeavesDependOnNothingButEachOther() {
    for (String leaf : LEAVES) {
      assertThat(uses.getOrDefault(leaf, Set.of())).as(leaf).isSubsetOf(LEAVES);
    }
  }

  @Test
  void noApiPackageButAModulesFacadeReachesIntoInternals() {
    Set<String> found = new TreeSet<>();
    uses.forEach((from, to) -> to.stream()
        .filter(t -> !isInternal(from) && isInternal(t) && !t.startsWith(from + ".internal"))
        .forEach(t -> found.add(from + " -> " + t)));
    assertThat(found).as("API packages using internal ones").isEmpty();
  }

  private static boolean isInternal(String pkg) {
    return pkg.contains(".internal.") || pkg.endsWith(".internal");
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
  void noMainSourceFileIsLongerThanTheLimit() throws IOException {
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
    assertThat(longFiles).as("main source files over " + MAX_LINES + " lines").isEmpty();
  }

  /** The strongly connected components of more than one package (Tarjan's algorithm). */
  private static List<Set<String>> cycles() {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new HashSet<>();
    List<Set<String>> out = new ArrayList<>();
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
