package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.expr.TemplateScope;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.InputSpec;
import dev.loopflow.core.model.Limits;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.model.StateMerge;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.secrets.SourceCredentials;
import dev.loopflow.core.spi.ModelPrices;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.yaml.YNode;
import dev.loopflow.core.yaml.YamlReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Loads a workflow file. The work happens in passes over the YAML tree — top-level sections, nodes (identity,
 * kind, shorthand, handler compilation), edges, then whole-graph checks (references, cycles, loop pairing, cost
 * limits) — and every pass keeps going after a problem, so one run of the loader reports everything wrong with a
 * file. Problems are reported sorted by position; problems at the same position keep the order of the passes.
 */
public final class WorkflowLoader {
  private final Map<String, NodeHandler> handlers;
  /** Null when no LLM module is installed: then prices are checked for shape only. */
  private final ModelPrices modelPrices;

  public WorkflowLoader(Map<String, NodeHandler> handlers) {
    this(handlers, Map.of());
  }

  /** {@code services}: the engine's services; a {@link ModelPrices} among them is used. */
  public WorkflowLoader(Map<String, NodeHandler> handlers, Map<Class<?>, Object> services) {
    this.handlers = Map.copyOf(handlers);
    this.modelPrices = services.get(ModelPrices.class) instanceof ModelPrices p ? p : null;
  }

  /** Loads and validates; throws {@link WorkflowInvalidException} with every problem found. */
  public Workflow load(String text, String file) {
    Problems problems = new Problems();
    List<Problem> yamlProblems = new ArrayList<>();
    YNode root = YamlReader.read(text, file, yamlProblems);
    yamlProblems.forEach(p -> problems.addUnreadable(p.location(), p.path(), p.message()));
    if (root == null) {
      throw new WorkflowInvalidException(problems.sorted());
    }
    return load(root, file, text, problems);
  }

  /** Loads from an already-built tree (the Java builder uses this with synthetic locations). */
  public Workflow load(YNode root, String file, String text) {
    return load(root, file, text, new Problems());
  }

  private Workflow load(YNode root, String file, String text, Problems problems) {
    if (!(root instanceof YNode.YMap top)) {
      problems.add(root.location(), "", "a workflow file must be a mapping with 'nodes', found " + root.describe());
      throw new WorkflowInvalidException(problems.sorted());
    }
    Workflow wf = run(new LoadState(handlers, modelPrices, top, file, text, problems));
    if (!problems.isEmpty()) {
      throw new WorkflowInvalidException(problems.sorted());
    }
    return wf;
  }

  /** The passes, in order: later ones read what earlier ones recorded in {@code st}. */
  private static Workflow run(LoadState st) {
    YNode.YMap top = st.top;
    Problems problems = st.problems;
    TopLevel.checkFields(top, problems);
    TopLevel.Header header = TopLevel.header(top, st.file, problems);
    st.defaults = Settings.defaults(top.get("defaults"), problems);
    st.defaultTimeout = Settings.defaultTimeout(top.get("defaults"));
    Budget budget = Settings.budget(top.get("budget"), "budget", problems);
    Limits limits = Settings.limits(top.get("limits"), problems);
    if (top.get("mock") != null) {
      st.sections.put("mock", top.get("mock").toPlain());
    }
    if (top.get("prices") != null) {
      st.sections.put("prices", Prices.section(top.get("prices"), st.modelPrices, problems));
    }
    YNode nodeList = top.get("nodes");
    Pipelines.Compiled pipeline = null;
    RestartPolicy policy = null;
    Map<String, InputSpec> inputs = new LinkedHashMap<>(header.inputs());
    if (top.get("workflow_pattern") != null) {
      for (String other : TopLevel.NOT_WITH_PIPELINE) {
        if (top.get(other) != null) {
          problems.add(top.entries().get(other).keyLocation(), other, "a pipeline (workflow_pattern) declares its "
              + "stages, edges and restart policy under workflow_pattern.iterative; remove '" + other + "'");
        }
      }
      pipeline = Pipelines.compile(top.get("workflow_pattern"), top.get("agents"), header.inputs().keySet(),
          st.defaults.containsKey("model"), problems);
      if (pipeline == null) {
        throw new WorkflowInvalidException(problems.sorted());
      }
      nodeList = pipeline.nodes();
      policy = pipeline.policy();
      pipeline.implicitInputs().forEach(inputs::putIfAbsent);
    } else {
      for (String only : TopLevel.ONLY_WITH_PIPELINE) {
        if (top.get(only) != null) {
          problems.add(top.entries().get(only).keyLocation(), only, "'" + only + "' configures the stages of a "
              + "pipeline; it needs workflow_pattern.iterative");
        }
      }
      if (top.get("restart_policy") != null) {
        policy = Pipelines.workflowPolicy(top.get("restart_policy"), problems);
      }
    }
    List<Node> nodes = new NodeLoader(st).nodes(nodeList);
    if (policy != null) {
      Set<String> ids = new LinkedHashSet<>();
      for (Node n : nodes) {
        ids.add(n.id());
        if (n.id().equals(RestartPolicy.LOOP_ID)) {
          problems.add(n.location(), "nodes", "the id '" + RestartPolicy.LOOP_ID + "' is reserved in a workflow "
              + "with a restart policy: it names the run's restart iterations");
        }
      }
      if (pipeline == null) {
        Pipelines.checkNodeNames(policy, top.get("restart_policy"), ids, problems);
      } else {
        nodes = PipelineStages.wrap(nodes, pipeline, policy, problems);
      }
    }
    List<Edge> edges = new Edges(st).edges(top.get("edges"));
    Template output = TopLevel.output(st);
    checkReferences(st, inputs.keySet(), edges);
    Graphs.check(nodes, edges, st.routers, problems, st.file);
    nodes = Graphs.pair(nodes, edges, problems, st.invalidLoopKinds);
    CostLimits.check(nodes, edges, budget, st.costProblems, problems);
    Map<String, StateMerge> merges = Settings.state(top.get("state"), problems);
    return ModelFactory.workflow(header.name(), header.description(), st.file, st.text, inputs,
        st.defaults, budget, limits, nodes, edges, output, st.sections, merges, policy,
        st.text == null ? null : SourceCredentials.of(st.text, st.top));
  }

  /** Checks every template's references once every id, kind and loop edge is known. */
  private static void checkReferences(LoadState st, Set<String> declaredInputs, List<Edge> edges) {
    Set<String> loopEdgeSources = new HashSet<>();
    for (Edge e : edges) {
      if (e.type() == Edge.Type.LOOP) {
        loopEdgeSources.add(e.from());
      }
    }
    ReferenceCheck check = new ReferenceCheck(st.problems, st.text, declaredInputs, loopEdgeSources, kind -> {
      NodeHandler h = st.handlers.get(kind);
      return h != null ? h.resultFields() : TemplateScope.CONTROL_RESULT_FIELDS.get(kind);
    });
    for (TemplateRef ref : st.refs) {
      Scope sc = st.refScopes.get(ref);
      check.check(ref, sc == null ? st.topScope : sc);
    }
  }
}
