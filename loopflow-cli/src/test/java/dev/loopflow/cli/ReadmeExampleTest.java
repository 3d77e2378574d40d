package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's Java example is compiled and run as written, so it cannot drift from the API. */
class ReadmeExampleTest {
  @TempDir
  Path dir;

  @Test
  void readmeJavaExampleCompilesAndPrintsWhatItPromises() throws Exception {
    String readme = Files.readString(Path.of("../README.md"));
    Matcher m = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(readme);
    assertThat(m.find()).as("README has a java block").isTrue();
    String code = m.group(1);
    assertThat(code.lines().count()).isLessThanOrEqualTo(26);
    Path src = dir.resolve("Hello.java");
    Files.writeString(src, code);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int rc = javac.run(null, null, null, "-cp", TestJvm.classPathOption(), "-d", dir.toString(),
        src.toString());
    assertThat(rc).isZero();
    PrintStream old = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try (var loader = new java.net.URLClassLoader(new java.net.URL[] {dir.toUri().toURL()},
        getClass().getClassLoader())) {
      loader.loadClass("Hello").getMethod("main", String[].class).invoke(null, (Object) new String[0]);
    } finally {
      System.setOut(old);
    }
    assertThat(out.toString(StandardCharsets.UTF_8).strip()).isEqualTo("COMPLETED HELLO ADA!");
    assertThat(List.of(code)).isNotEmpty();
  }
}
