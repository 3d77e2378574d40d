package dev.loopflow.llm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.llm.provider.Provider;
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
          + "id to such a list, found " + (script == null ? "nothing" : Values.describe(script)));
    }
    return script;
  }

  /**
   * Whether a run of {@code workflow} should answer its LLM calls from the mock provider although no mock was asked
   * for: the workflow carries a {@code mock:} block and no LLM provider is configured at all in {@code environment}
   * (none of the providers' key or base URL variables is set), so every example runs as written on a machine
   * without keys. A configured provider is never replaced. Front ends (the CLI, the server) then set the run option
   * {@code llm.mock} and say so.
   */
  public static boolean mockWhenNoProvider(Workflow workflow,
      Map<String, String> environment) {
    if (workflow.blocks().get("mock") == null) {
      return false;
    }
    for (Provider p : Provider.values()) {
      if (set(environment.get(p.baseUrlVariable()))
          || p.apiKeyVariable().map(environment::get).filter(MockScripts::set).isPresent()) {
        return false;
      }
    }
    return true;
  }

  private static boolean set(String v) {
    return v != null && !v.isBlank();
  }
}
