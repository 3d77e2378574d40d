package dev.loopflow.cli;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/** What a child JVM or compiler started by a test needs to see the same classes as the test's own JVM. */
final class TestJvm {
  private TestJvm() {}

  /**
   * The class path that holds everything this JVM runs with. Tests run on the module path, where the loopflow modules
   * and their named dependencies are on {@code jdk.module.path}, not {@code java.class.path}; a child process runs
   * the CLI from the class path, as the shipped jar does.
   */
  static List<String> classPath() {
    List<String> entries = new ArrayList<>();
    for (String property : List.of("jdk.module.path", "java.class.path")) {
      String value = System.getProperty(property);
      if (value != null && !value.isEmpty()) {
        entries.addAll(List.of(value.split(File.pathSeparator)));
      }
    }
    return entries;
  }

  /** {@link #classPath()} joined for {@code -cp}. */
  static String classPathOption() {
    return String.join(File.pathSeparator, classPath());
  }
}
