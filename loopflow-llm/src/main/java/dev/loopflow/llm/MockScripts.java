package dev.loopflow.llm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.loopflow.core.expr.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Mock LLM scripts: a list of responses (answered across calls in order) or a map from node id to such a list, in a
 * JSON file or, for {@code .yaml}/{@code .yml}, a YAML file. Pass what {@link #read} returns as the run option
 * {@code llm.mock_script}: the script then travels with the run's journal.
 */
public final class MockScripts {
  private MockScripts() {}

  /**
   * Reads and checks a script file.
   *
   * @throws IllegalArgumentException naming the file when it cannot be read, does not parse, or holds neither a
   *     list nor a map
   */
  public static Object read(Path file) {
    Object script;
    try {
      String text = Files.readString(file);
      String name = file.getFileName().toString();
      script = name.endsWith(".yaml") || name.endsWith(".yml")
          ? new ObjectMapper(new YAMLFactory()).readValue(text, Object.class) : Json.parse(text);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot read mock script " + file + ": " + e.getMessage(), e);
    }
    if (!(script instanceof List<?>) && !(script instanceof Map<?, ?>)) {
      throw new IllegalArgumentException("mock script " + file + " must hold a list of responses or a map from node "
          + "id to such a list, found " + (script == null ? "nothing" : dev.loopflow.core.expr.Values.describe(script)));
    }
    return script;
  }
}
