package dev.loopflow.core.internal.plan;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.InputSpec;
import dev.loopflow.core.model.Limits;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.model.StateMerge;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.secrets.SourceCredentials;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine's {@link Workflow}: made only by the loader, after validation, with its execution plan computed once,
 * which every run and every loop pass reuses. The engine runs no other implementation.
 */
public final class LoadedWorkflow implements Workflow {
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
  /** The credentials written in {@link #source}, found once here rather than at every run start; null without one. */
  private final SourceCredentials credentials;

  public LoadedWorkflow(String name, String description, String file, String source, Map<String, InputSpec> inputs,
      Map<String, Object> defaults, Budget budget, Limits limits, List<Node> nodes, List<Edge> edges,
      Template output, Map<String, Object> blocks, Map<String, StateMerge> stateMerge,
      RestartPolicy restartPolicy, SourceCredentials credentials) {
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
    this.credentials = credentials != null || source == null ? credentials : SourceCredentials.scan(source);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    return description;
  }

  /** The file it was loaded from ({@code <java>} when built in code). */
  @Override
  public String file() {
    return file;
  }

  @Override
  public String source() {
    return source;
  }

  @Override
  public Map<String, InputSpec> inputs() {
    return inputs;
  }

  @Override
  public Map<String, Object> defaults() {
    return defaults;
  }

  @Override
  public Budget budget() {
    return budget;
  }

  @Override
  public Limits limits() {
    return limits;
  }

  /** The top-level nodes in definition order (nested loop bodies hang off their loop nodes). */
  @Override
  public List<Node> nodes() {
    return nodes;
  }

  @Override
  public List<Edge> edges() {
    return edges;
  }

  @Override
  public Template output() {
    return output;
  }

  @Override
  public Map<String, Object> blocks() {
    return blocks;
  }

  @Override
  public Map<String, StateMerge> stateMerge() {
    return stateMerge;
  }

  /** The restart policy (a pipeline's, or one declared on the workflow); null when restarts are not possible. */
  @Override
  public RestartPolicy restartPolicy() {
    return restartPolicy;
  }

  /** The execution plan computed when the workflow was made. */
  public ExecGraph plan() {
    return plan;
  }

  /** The credentials written in the source, found when it was loaded; null when there is no source. */
  public SourceCredentials credentials() {
    return credentials;
  }

  /**
   * The plan of {@code workflow}, which must have been made by the engine: a workflow built elsewhere was never
   * validated, and is refused.
   */
  public static ExecGraph planOf(Workflow workflow) {
    if (workflow instanceof LoadedWorkflow w) {
      return w.plan;
    }
    throw new LoopflowException(ErrorCode.USAGE, "workflow '" + workflow.name() + "' was not made by the engine: "
        + "load it with Loopflow.load or Loopflow.parse, or build it with Loopflow.workflow(...)", null);
  }

  @Override
  public String toString() {
    return "Workflow[" + name + (file == null ? "" : ", " + file) + ", " + nodes.size() + " nodes]";
  }
}
