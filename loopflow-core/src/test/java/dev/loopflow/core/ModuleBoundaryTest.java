package dev.loopflow.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The boundary of the core module: its {@code internal} packages are not exported, nothing outside the core names
 * them, and no exported type hands one out. The module descriptor enforces the first for code on the module path;
 * these checks also cover code compiled on the class path (the benchmarks) and what the descriptor cannot see (an
 * exported method whose signature mentions an internal type compiles, and fails only in a caller).
 */
class ModuleBoundaryTest {
  static final String INTERNAL = "dev.loopflow.core.internal";
  /** The repository's root: tests run in the module's directory. */
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void coreExportsEveryApiPackageAndNoInternalOne() throws IOException {
    ModuleDescriptor d = descriptor();
    Set<String> exported = d.exports().stream().map(ModuleDescriptor.Exports::source)
        .collect(Collectors.toCollection(TreeSet::new));
    assertThat(d.name()).isEqualTo("dev.loopflow.core");
    assertThat(exported).noneMatch(p -> p.equals(INTERNAL) || p.startsWith(INTERNAL + "."));
    assertThat(d.exports()).allMatch(e -> !e.isQualified(), "exports to everyone, never to chosen modules");
    assertThat(d.opens()).isEmpty();
    // every package outside internal is API; one added later must be exported or moved under internal
    assertThat(exported).isEqualTo(d.packages().stream()
        .filter(p -> !p.equals(INTERNAL) && !p.startsWith(INTERNAL + "."))
        .collect(Collectors.toCollection(TreeSet::new)));
    assertThat(exported).contains("dev.loopflow.core", "dev.loopflow.core.model", "dev.loopflow.core.run",
        "dev.loopflow.core.spi", "dev.loopflow.core.store", "dev.loopflow.core.event", "dev.loopflow.core.expr");
  }

  @Test
  void noSourceOutsideTheCoreNamesACoreInternalPackage() throws IOException {
    List<Path> sources = javaSourcesOutsideCore(ROOT);
    // the scan must see the other modules, or it proves nothing
    assertThat(sources).anyMatch(p -> p.startsWith(ROOT.resolve("loopflow-cli")))
        .anyMatch(p -> p.startsWith(ROOT.resolve("loopflow-llm")))
        .anyMatch(p -> p.startsWith(ROOT.resolve("bench")));
    assertThat(referencesToInternal(sources)).isEmpty();
  }

  @Test
  void sourceScanFindsAReferenceToAnInternalPackage(@TempDir Path dir) throws IOException {
    Path module = Files.createDirectories(dir.resolve("loopflow-other/src/main/java/x"));
    Files.writeString(module.resolve("Uses.java"), "package x;\nclass Uses {\n  Object o = new "
        + INTERNAL + ".util.Names();\n}\n");
    Files.writeString(module.resolve("Clean.java"), "package x;\nclass Clean {}\n");
    Path core = Files.createDirectories(dir.resolve("loopflow-core/src/main/java/y"));
    Files.writeString(core.resolve("Inside.java"), "package y;\nimport " + INTERNAL + ".util.Names;\n");

    List<Path> sources = javaSourcesOutsideCore(dir);
    assertThat(sources).hasSize(2);
    assertThat(referencesToInternal(sources)).containsExactly(module.resolve("Uses.java") + ":3");
  }

  @Test
  void noExportedTypeExposesAnInternalTypeInAPublicSignature() throws Exception {
    List<Class<?>> types = new ArrayList<>();
    for (String pkg : descriptor().exports().stream().map(ModuleDescriptor.Exports::source).toList()) {
      types.addAll(classesIn(pkg));
    }
    assertThat(types).hasSizeGreaterThan(50).contains(Loopflow.class, dev.loopflow.core.spi.NodeContext.class);
    List<String> leaks = new ArrayList<>();
    for (Class<?> c : types) {
      if (visibleOutside(c)) {
        leaks.addAll(internalTypesIn(c));
      }
    }
    assertThat(leaks).isEmpty();
  }

  /** A fixture that leaks: the signature check must find each of its leaks. */
  public static class Leaky<T extends dev.loopflow.core.internal.load.LoaderVocabulary> {
    public dev.loopflow.core.internal.load.LoaderVocabulary field;
    protected List<? super dev.loopflow.core.internal.load.LoaderVocabulary> wildcard;
    private dev.loopflow.core.internal.load.LoaderVocabulary hidden;

    public Leaky(dev.loopflow.core.internal.load.LoaderVocabulary[] vocabularies) {}

    public java.util.Map<String, List<dev.loopflow.core.internal.load.LoaderVocabulary>> nested() {
      return null;
    }

    Leaky<?> packagePrivate(dev.loopflow.core.internal.load.LoaderVocabulary v) {
      return hidden == null ? null : this;
    }
  }

  @Test
  void signatureCheckFindsEveryPublicLeak() {
    assertThat(internalTypesIn(Leaky.class)).hasSize(5).allMatch(s -> s.startsWith(Leaky.class.getName()))
        .anyMatch(s -> s.contains("type parameter T")).anyMatch(s -> s.contains("field field"))
        .anyMatch(s -> s.contains("field wildcard")).anyMatch(s -> s.contains("<init>"))
        .anyMatch(s -> s.contains("nested()"))
        .noneMatch(s -> s.contains("hidden") || s.contains("packagePrivate"));
  }

  private static ModuleDescriptor descriptor() throws IOException {
    try (InputStream in = Files.newInputStream(classesDir().resolve("module-info.class"))) {
      return ModuleDescriptor.read(in);
    }
  }

  /** The core's compiled main classes (the tests are compiled elsewhere). */
  private static Path classesDir() {
    return Path.of("target/classes").toAbsolutePath();
  }

  private static List<Path> javaSourcesOutsideCore(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p))
          .filter(p -> {
            Path rel = root.relativize(p);
            if (rel.getName(0).toString().equals("loopflow-core")) {
              return false;
            }
            for (Path part : rel) {
              String s = part.toString();
              if (s.equals("target") || s.equals("node_modules") || s.startsWith(".")) {
                return false;
              }
            }
            return true;
          })
          .sorted().toList();
    }
  }

  /** {@code file:line} of every line that names an internal package (in an import, a qualified name or a string). */
  private static List<String> referencesToInternal(List<Path> sources) throws IOException {
    List<String> found = new ArrayList<>();
    for (Path p : sources) {
      List<String> lines = Files.readAllLines(p);
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).contains(INTERNAL)) {
          found.add(p + ":" + (i + 1));
        }
      }
    }
    return found;
  }

  /** The top-level and nested classes compiled into one package (not its subpackages). */
  private static List<Class<?>> classesIn(String pkg) throws IOException, ClassNotFoundException {
    Path dir = classesDir().resolve(pkg.replace('.', '/'));
    List<Class<?>> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
        String simple = f.getFileName().toString().replace(".class", "");
        if (simple.equals("package-info")) {
          continue;
        }
        out.add(Class.forName(pkg + "." + simple, false, Loopflow.class.getClassLoader()));
      }
    }
    return out;
  }

  /**
   * Every place where a type mentions an internal type in what code outside the module can see: its supertypes,
   * type parameters, and the signatures of its public and protected fields, constructors and methods.
   */
  static List<String> internalTypesIn(Class<?> c) {
    List<String> leaks = new ArrayList<>();
    String name = c.getName();
    check(leaks, name + " extends", c.getGenericSuperclass());
    for (Type t : c.getGenericInterfaces()) {
      check(leaks, name + " implements", t);
    }
    for (TypeVariable<?> v : c.getTypeParameters()) {
      check(leaks, name + " type parameter " + v.getName(), v);
    }
    for (Field f : c.getDeclaredFields()) {
      if (exposed(f.getModifiers())) {
        check(leaks, name + " field " + f.getName(), f.getGenericType());
      }
    }
    List<Executable> members = new ArrayList<>(List.of(c.getDeclaredConstructors()));
    members.addAll(List.of(c.getDeclaredMethods()));
    for (Executable e : members) {
      if (!exposed(e.getModifiers()) || e.isSynthetic()) {
        continue;
      }
      String where = name + " " + (e instanceof Constructor<?> ? "<init>" : e.getName()) + "()";
      if (e instanceof Method m) {
        check(leaks, where, m.getGenericReturnType());
      }
      for (Type t : e.getGenericParameterTypes()) {
        check(leaks, where, t);
      }
      for (Type t : e.getGenericExceptionTypes()) {
        check(leaks, where, t);
      }
      for (TypeVariable<?> v : e.getTypeParameters()) {
        check(leaks, where + " type parameter " + v.getName(), v);
      }
    }
    return leaks;
  }

  /** Public, and if nested, inside public (or protected) classes all the way out. */
  private static boolean visibleOutside(Class<?> c) {
    for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
      if (!exposed(k.getModifiers()) || k.isAnonymousClass() || k.isLocalClass()) {
        return false;
      }
    }
    return true;
  }

  private static boolean exposed(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  private static void check(List<String> leaks, String where, Type type) {
    Set<Class<?>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    mentioned(type, seen, Collections.newSetFromMap(new IdentityHashMap<>()));
    for (Class<?> k : seen) {
      if (k.getPackageName().equals(INTERNAL) || k.getPackageName().startsWith(INTERNAL + ".")) {
        leaks.add(where + ": " + k.getName());
      }
    }
  }

  /** The classes a generic type mentions, through type arguments, bounds and array components. */
  private static void mentioned(Type t, Set<Class<?>> out, Set<Type> visiting) {
    if (t == null || !visiting.add(t)) {
      return;
    }
    switch (t) {
      case Class<?> k -> {
        Class<?> e = k;
        while (e.isArray()) {
          e = e.componentType();
        }
        out.add(e);
      }
      case ParameterizedType p -> {
        mentioned(p.getRawType(), out, visiting);
        mentioned(p.getOwnerType(), out, visiting);
        for (Type a : p.getActualTypeArguments()) {
          mentioned(a, out, visiting);
        }
      }
      case WildcardType w -> {
        for (Type b : w.getUpperBounds()) {
          mentioned(b, out, visiting);
        }
        for (Type b : w.getLowerBounds()) {
          mentioned(b, out, visiting);
        }
      }
      case GenericArrayType g -> mentioned(g.getGenericComponentType(), out, visiting);
      case TypeVariable<?> v -> {
        for (Type b : v.getBounds()) {
          mentioned(b, out, visiting);
        }
      }
      default -> {
        // no other kinds of Type exist
      }
    }
  }
}
