package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar rewrite that lets the AOT cache link luaj, picocli and Jinjava's expression classes: Java 5 class files in
 * those libraries become Java 8 class files that the type-checking verifier accepts and that behave as before; other
 * entries are left byte for byte.
 */
class ModernizeTest {
  @TempDir
  Path dir;

  /**
   * A Java 5 class file (version 49, no stack maps) of class {@code name} with one method, {@code static int f(int
   * x)}: the sum 1..x for x > 0 (a loop), else -x (a branch). Made once with the JDK's class-file API.
   */
  static byte[] java5Class(String name) throws Exception {
    try (var in = ModernizeTest.class.getResourceAsStream("/modernize/" + name + ".class.bin")) {
      return in.readAllBytes();
    }
  }

  @Test
  void java5ClassesOfTheNamedLibrariesBecomeVerifiableJava8ClassesThatBehaveTheSame() throws Exception {
    assumeTrue(Runtime.version().feature() >= 24, "the rewrite needs the class-file API (JDK 24 or newer)");
    Path jar = dir.resolve("app.jar");
    byte[] other = java5Class("other.Old");
    assertThat(major(other)).isEqualTo(49);
    try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(jar))) {
      put(z, "META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n".getBytes(StandardCharsets.UTF_8));
      put(z, "org/luaj/vm2/Old.class", java5Class("org.luaj.vm2.Old"));
      put(z, "picocli/Old.class", java5Class("picocli.Old"));
      put(z, "other/Old.class", other);
      put(z, "org/luaj/vm2/notes.txt", "kept".getBytes(StandardCharsets.UTF_8));
    }
    Path before = dir.resolve("before.jar");
    Files.copy(jar, before);
    assertThat(modernize(jar)).contains("rewrote 2 class files");
    try (ZipFile z = new ZipFile(jar.toFile())) {
      assertThat(z.stream().map(ZipEntry::getName)).containsExactly("META-INF/MANIFEST.MF",
          "org/luaj/vm2/Old.class", "picocli/Old.class", "other/Old.class", "org/luaj/vm2/notes.txt");
      for (String name : new String[] {"org/luaj/vm2/Old.class", "picocli/Old.class"}) {
        byte[] b = z.getInputStream(z.getEntry(name)).readAllBytes();
        assertThat(major(b)).as(name).isEqualTo(52);
        assertThat(new String(b, StandardCharsets.ISO_8859_1)).as(name).contains("StackMapTable");
      }
      assertThat(z.getInputStream(z.getEntry("other/Old.class")).readAllBytes()).isEqualTo(other);
      assertThat(new String(z.getInputStream(z.getEntry("org/luaj/vm2/notes.txt")).readAllBytes(),
          StandardCharsets.UTF_8)).isEqualTo("kept");
    }
    // Loading a version 52 class runs the type-checking verifier, which fails unless the stack maps are right; the
    // rewritten method answers what the original answers.
    try (URLClassLoader now = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null);
        URLClassLoader then = new URLClassLoader(new URL[] {before.toUri().toURL()}, null)) {
      for (String cls : new String[] {"org.luaj.vm2.Old", "picocli.Old"}) {
        Method f = now.loadClass(cls).getMethod("f", int.class);
        Method g = then.loadClass(cls).getMethod("f", int.class);
        for (int x : new int[] {-7, -1, 0, 1, 4, 100}) {
          assertThat(f.invoke(null, x)).as("%s.f(%s)", cls, x).isEqualTo(g.invoke(null, x));
        }
        assertThat(f.invoke(null, 4)).isEqualTo(10);
      }
    }
    assertThat(modernize(jar)).as("a second pass finds nothing to do").contains("rewrote 0 class files");
  }

  private static int major(byte[] b) {
    return ((b[6] & 0xff) << 8) | (b[7] & 0xff);
  }

  private static void put(ZipOutputStream z, String name, byte[] bytes) throws Exception {
    z.putNextEntry(new ZipEntry(name));
    z.write(bytes);
    z.closeEntry();
  }

  private static String modernize(Path jar) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process p = new ProcessBuilder(java, Path.of("src/main/aot/Modernize.java").toAbsolutePath().toString(),
        jar.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(out).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }
}
