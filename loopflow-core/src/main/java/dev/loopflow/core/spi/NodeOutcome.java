package dev.loopflow.core.spi;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a node produced. {@code output} is the primary value; {@code fields} are the other named parts of the
 * result ({@code text}, {@code json}, {@code stdout}, ...), readable in templates as {@code <nodeId>.<field>};
 * {@code statePatch} is merged into the run's {@code state} (script nodes); {@code usage} is its LLM usage.
 */
public record NodeOutcome(Object output, Map<String, Object> fields, Usage usage, Map<String, Object> statePatch) {
  public NodeOutcome {
    fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    statePatch = statePatch == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(statePatch));
    usage = usage == null ? Usage.NONE : usage;
  }

  public static NodeOutcome of(Object output) {
    return new NodeOutcome(output, Map.of(), Usage.NONE, null);
  }

  public NodeOutcome with(String field, Object value) {
    Map<String, Object> f = new LinkedHashMap<>(fields);
    f.put(field, value);
    return new NodeOutcome(output, f, usage, statePatch);
  }

  public NodeOutcome withFields(Map<String, Object> more) {
    Map<String, Object> f = new LinkedHashMap<>(fields);
    f.putAll(more);
    return new NodeOutcome(output, f, usage, statePatch);
  }

  public NodeOutcome withUsage(Usage u) {
    return new NodeOutcome(output, fields, u, statePatch);
  }

  public NodeOutcome withStatePatch(Map<String, Object> patch) {
    return new NodeOutcome(output, fields, usage, patch);
  }
}
