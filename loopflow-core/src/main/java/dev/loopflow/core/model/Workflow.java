package dev.loopflow.core.model;

import dev.loopflow.core.expr.Template;
import dev.loopflow.core.internal.plan.Dependencies;
import dev.loopflow.core.internal.plan.ExecGraph;
import dev.loopflow.core.internal.plan.ModelAccess;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A loaded and validated workflow, immutable. {@code source} is the text it was loaded from (null when built in
 * code); {@code blocks} keeps top-level sections that extensions read (e.g. {@code mock}).
 *
 * <p>There is no public constructor: a workflow comes only from {@code Loopflow.load}, {@code Loopflow.parse} or
 * {@code Loopflow.workflow(...).build()}, which validate it and compute its execution plan once. Every run and
 * every loop pass reuses that plan.
 */
public final class Workflow {
  static {
    ModelAccess.install(Workflow::new, w -> w.plan);
  }

  private final String name;
  private final String description;
  private final String file;
  private final String source;
  private final Map<String, InputSpec> inputs;
  private final Map<String, Object> defaults;
  private final Budget budget;
  private final Limits limits;
  private final List<Node> nodes;
  private final List<Edge> edges;
  private final Template output;
  private final Map<String, Object> blocks;
  private final Map<String, StateMerge> stateMerge;
  private final RestartPolicy restartPolicy;
  private final ExecGraph plan;

  private Workflow(String name, String description, String file, String source, Map<String, InputSpec> inputs,
      Map<String, Object> defaults, Budget budget, Limits limits, List<Node> nodes, List<Edge> edges,
      Template output, Map<String, Object> blocks, Map<String, StateMerge> stateMerge,
      RestartPolicy restartPolicy) {
    this.name = name;
    this.description = description;
    this.file = file;
    this.source = source;
    this.inputs = Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
    this.defaults = Collections.unmodifiableMap(new LinkedHashMap<>(defaults));
    this.budget = budget;
    this.limits = limits;
    this.nodes = List.copyOf(nodes);
    this.edges = List.copyOf(edges);
    this.output = output;
    this.blocks = Collections.unmodifiableMap(new LinkedHashMap<>(blocks));
    this.stateMerge = Collections.unmodifiableMap(new LinkedHashMap<>(stateMerge));
    this.restartPolicy = restartPolicy;
    this.plan = ExecGraph.of(this.nodes, this.edges);
  }

  public String name() {
    return name;
  }

  public String description() {
    return description;
  }

  /** The file it was loaded from ({@code <java>} when built in code). */
  public String file() {
    return file;
  }

  public String source() {
    return source;
  }

  public Map<String, InputSpec> inputs() {
    return inputs;
  }

  public Map<String, Object> defaults() {
    return defaults;
  }

  public Budget budget() {
    return budget;
  }

  public Limits limits() {
    return limits;
  }

  /** The top-level nodes in definition order (nested loop bodies hang off their loop nodes). */
  public List<Node> nodes() {
    return nodes;
  }

  public List<Edge> edges() {
    return edges;
  }

  public Template output() {
    return output;
  }

  public Map<String, Object> blocks() {
    return blocks;
  }

  public Map<String, StateMerge> stateMerge() {
    return stateMerge;
  }

  /**
   * The top level's forward dependencies as the engine schedules them: declared edges and {@code depends_on}, or
   * listed order when the workflow declares neither. Tools that draw a workflow use these.
   */
  public List<Edge> dependencies() {
    return Dependencies.of(nodes, edges);
  }

  /** The restart policy (a pipeline's, or one declared on the workflow); null when restarts are not possible. */
  public RestartPolicy restartPolicy() {
    return restartPolicy;
  }

  /** How a state key is merged; REPLACE unless declared otherwise. */
  public StateMerge merge(String key) {
    return stateMerge.getOrDefault(key, StateMerge.REPLACE);
  }

  public Node node(String id) {
    for (Node n : nodes) {
      if (n.id().equals(id)) {
        return n;
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return "Workflow[" + name + (file == null ? "" : ", " + file) + ", " + nodes.size() + " nodes]";
  }
}
