package dev.loopflow.core;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.yaml.YamlReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Builds a workflow in code. The result goes through the same validation as a YAML file, so a builder
 * mistake gets the same messages (with {@code <java>} as the file).
 *
 * <pre>{@code
 * Workflow wf = engine.workflow("greet")
 *     .input("name", "string")
 *     .node("hello", "shell", Map.of("command", "echo Hello {{ input.name }}"))
 *     .node("shout", "transform", Map.of("template", "{{ hello.output | upper }}"))
 *     .edge("hello", "shout")
 *     .build();
 * }</pre>
 */
public final class WorkflowBuilder {
  private final Loopflow engine;
  private final Map<String, Object> doc = new LinkedHashMap<>();
  private final Map<String, Object> inputs = new LinkedHashMap<>();
  private final List<Object> nodes = new ArrayList<>();
  private final List<Object> edges = new ArrayList<>();
  private final Map<String, NodeHandler> inline = new LinkedHashMap<>();

  WorkflowBuilder(String name, Loopflow engine) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("workflow name must be a non-empty string, was '" + name + "'");
    }
    this.engine = engine;
    doc.put("name", name);
  }

  /** Declares an input by simple type ({@code string}, {@code number}, ...). */
  public WorkflowBuilder input(String name, String type) {
    inputs.put(Objects.requireNonNull(name, "name"), type);
    return this;
  }

  /** Adds a node of a kind with its fields, exactly as they would be written in YAML. */
  public WorkflowBuilder node(String id, String kind, Map<String, ?> fields) {
    Map<String, Object> n = new LinkedHashMap<>();
    n.put("id", id);
    n.put("type", kind);
    n.putAll(fields);
    nodes.add(n);
    return this;
  }

  /** Adds a node whose work is a Java function. */
  public WorkflowBuilder node(String id, NodeProgram program) {
    Objects.requireNonNull(program, "program");
    String kind = "java." + id.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    NodeKindSpec spec = NodeKindSpec.of(kind, null, List.of());
    inline.put(kind, new NodeHandler() {
      @Override
      public NodeKindSpec spec() {
        return spec;
      }

      @Override
      public NodeProgram compile(NodeConfig config) {
        return program;
      }
    });
    return node(id, kind, Map.of());
  }

  public WorkflowBuilder edge(String from, String to) {
    edges.add(Map.of("from", from, "to", to));
    return this;
  }

  /** A conditional edge: {@code to} runs only when {@code when} (a Jinja expression) holds. */
  public WorkflowBuilder edge(String from, String to, String when) {
    edges.add(Map.of("from", from, "to", to, "when", when));
    return this;
  }

  /** An edge taken when router {@code from} selects {@code branch}. */
  /**
   * A loop edge (001): after {@code from} completes and {@code when} holds (null: always), the cycle region from
   * {@code to} to {@code from} runs again, at most {@code maxIterations} passes in all.
   */
  public WorkflowBuilder loopEdge(String from, String to, int maxIterations, String when) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("from", from);
    e.put("to", to);
    e.put("type", "loop");
    e.put("maxIterations", maxIterations);
    if (when != null) {
      e.put("when", when);
    }
    edges.add(e);
    return this;
  }

  public WorkflowBuilder branch(String from, String branch, String to) {
    edges.add(Map.of("from", from, "to", to, "branch", branch));
    return this;
  }

  /** Sets a top-level section ({@code budget}, {@code limits}, {@code defaults}, {@code output}, ...). */
  public WorkflowBuilder set(String section, Object value) {
    doc.put(Objects.requireNonNull(section, "section"), value);
    return this;
  }

  public Workflow build() {
    Map<String, Object> d = new LinkedHashMap<>(doc);
    if (!inputs.isEmpty()) {
      d.put("input", inputs);
    }
    d.put("nodes", nodes);
    if (!edges.isEmpty()) {
      d.put("edges", edges);
    }
    Location at = new Location("<java>", 0, 0);
    return engine.loaderWith(inline).load(YamlReader.fromPlain(d, at), "<java>", null);
  }
}
