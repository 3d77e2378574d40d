package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.spi.ModelPrices;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.yaml.YNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The mutable state of one load of one file, shared by the section loaders. Sections that run later read what
 * earlier ones recorded here (ids, kinds, routers, defaults), so the order of the sections in
 * {@link WorkflowLoader} is part of the behaviour.
 */
final class LoadState {
  final Map<String, NodeHandler> handlers;
  /** Null when no LLM module is installed: then prices are checked for shape only. */
  final ModelPrices modelPrices;
  final YNode.YMap top;
  final String file;
  final String text;
  final Problems problems;
  /** Every template and condition compiled so far, checked against the scopes once all ids are known. */
  final List<TemplateRef> refs = new ArrayList<>();
  /** Where each template was written; a template not in here was written at the top level. */
  final Map<TemplateRef, Scope> refScopes = new IdentityHashMap<>();
  /** The top level's ids, in file order. */
  final Map<String, Location> nodeIds = new LinkedHashMap<>();
  /** The top level's scope: workflow-level templates (output:, edges) are written there. */
  final Scope topScope = new Scope(null, null, null, "nodes", nodeIds);
  /** The scope whose nodes are being loaded: the top level, or a loop body. */
  Scope scope;
  /** The last nested body scope loaded, so a loop's own fields can be checked against its body. */
  Scope lastBody;
  /** defaults.timeout, applied to work nodes that set none; null when absent or invalid. */
  Duration defaultTimeout;
  /** The defaults in force for the nodes being loaded: the workflow's, or a loop_group's over them. */
  Map<String, Object> defaults = Map.of();
  /** Top-level sections extensions read ({@code mock}, {@code prices}); filled before nodes are compiled. */
  final Map<String, Object> sections = new LinkedHashMap<>();
  /** Kinds of loop nodes that failed to load: their exit/aggregator is not also reported as unpaired. */
  final Set<String> invalidLoopKinds = new HashSet<>();
  final Map<String, Node.Router> routers = new HashMap<>();
  /** The top-level nodes that loaded, by id: edges check their endpoints and branches against these. */
  final Map<String, Node> compiled = new HashMap<>();
  /** Per node body: problems that hold if a max_usd budget applies to the node (see CostLimits). */
  final Map<Node.Body, List<Problem>> costProblems = new IdentityHashMap<>();

  LoadState(Map<String, NodeHandler> handlers, ModelPrices modelPrices, YNode.YMap top, String file, String text,
      Problems problems) {
    this.handlers = handlers;
    this.modelPrices = modelPrices;
    this.top = top;
    this.file = file;
    this.text = text;
    this.problems = problems;
  }

  /** A node's fields as the {@code NodeConfig} handlers read, under the defaults in force now. */
  NodeConfigImpl config(String id, String kind, Location at, String path, Map<String, YNode.YMap.Entry> fields) {
    return new NodeConfigImpl(id, kind, at, path, fields, problems, refs, defaults, sections);
  }
}
