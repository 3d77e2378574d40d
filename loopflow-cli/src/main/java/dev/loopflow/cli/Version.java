package dev.loopflow.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/**
 * What {@code loopflow --version} prints. The product version is written in one place, the pom; the build copies it
 * into {@code version.properties} next to this class, as it does for the server's {@code /api/health}.
 */
public final class Version implements CommandLine.IVersionProvider {

  /** The version this CLI was built as, or "unknown" when it runs from classes the build did not filter. */
  static String current() {
    try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
      Properties p = new Properties();
      if (in != null) {
        p.load(in);
      }
      String v = p.getProperty("version", "");
      // An unfiltered copy still holds the placeholder: say so rather than print it.
      return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
    } catch (IOException e) {
      return "unknown";
    }
  }

  @Override
  public String[] getVersion() {
    return new String[] {"loopflow " + current()};
  }
}
