package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.error.Names;
import dev.loopflow.core.expr.TemplateScope;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.InputSpec;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.yaml.YNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The iterative pipeline ({@code workflow_pattern.iterative}) and {@code restart_policy}. A pipeline compiles to an
 * ordinary graph: one {@code agent} node per stage, in stage order, whose id is the stage's {@code agent_id} and
 * whose fields come from {@code agents.<agent_id>}, plus a restart policy. A stage's {@code prompt_template} keeps
 * the pipeline's placeholders: {@code {{previous}}}, {@code {{stage-N-output}}}, {@code {{<agent_id>}}},
 * {@code {{all-outputs}}}, and any other bare name is a run input; they are rewritten here into ordinary template
 * references ({@code pipeline['stage-1-output']}, {@code input['table_name']}), so the values inserted are never
 * evaluated again.
 */
final class Pipelines {
  private Pipelines() {}

  static final int MAX_STAGES = 100;
  /** Each stage compiles to a node of this kind. */
  static final String STAGE_KIND = "agent";
  /** What the stage sets on its node, so its agents settings cannot. */
  static final List<String> STAGE_FIXED = List.of("id", "name", "type");

  static final FieldSpec ITERATIONS = FieldSpec.integer("max_iterations", 1, 100, "The most iterations (restarts "
      + "plus one) a run may have (default 3).");
  static final FieldSpec COOLDOWN = FieldSpec.integer("cooldown_seconds", 0, 3600, "The least time between two "
      + "restarts of the same target.");
  static final FieldSpec VALIDATION_RETRIES = FieldSpec.integer("max_validation_retries", 0, 3, "How many times a "
      + "stage output that does not validate is retried with a fresh session (default 2; 0 turns validation off).");
  static final List<FieldSpec> POLICY = List.of(
      FieldSpec.bool("enabled", "Whether restarts may happen (default false)."),
      FieldSpec.list("restartable_stages", FieldSpec.string("restartable_stages", null), "The nodes a restart may "
          + "target (default: any)."),
      COOLDOWN,
      FieldSpec.bool("reset_shared_memory", "Whether an accepted restart clears the run's workflow shared memory."),
      FieldSpec.bool("preserve_outputs", "Whether the outputs of the target and later nodes stay readable until "
          + "they are replaced (default true)."),
      VALIDATION_RETRIES,
      FieldSpec.bool("keep_shared_memory", "Whether the workflow shared-memory namespace outlives the run."));
  /** What a pipeline declares next to its restart policy (and a workflow-level policy inside it). */
  static final List<FieldSpec> ITERATION_FIELDS = List.of(
      ITERATIONS,
      FieldSpec.list("restart_triggers", FieldSpec.string("restart_triggers", null), "The nodes that may request a "
          + "restart (default: any)."),
      FieldSpec.string("restart_topic", "The topic restart requests are published on."),
      FieldSpec.choice("on_exhausted", LoaderSupport.ON_EXHAUSTED, "What a restart refused because the iterations "
          + "are used up does: fail the run (default) or only refuse the request."));
  static final List<FieldSpec> STAGE = List.of(
      FieldSpec.string("agent_id", "The stage's id: its agent node's id, and the key of its settings under "
          + "agents.").asRequired(),
      FieldSpec.string("prompt_template", "The stage's prompt; {{previous}}, {{stage-N-output}}, {{<agent_id>}} "
          + "and {{all-outputs}} insert earlier stages' outputs, other bare names are run inputs.").asRequired(),
      FieldSpec.jsonSchema("output_schema", "The JSON Schema the stage's output must match."));
  static final List<FieldSpec> PIPELINE = List.of(
      FieldSpec.string("initial_prompt", "Text put before the first stage's prompt (its {{previous}})."),
      FieldSpec.list("stages", FieldSpec.section("stages", STAGE, "One stage."), "The stages, in order; at most "
          + MAX_STAGES + ".").asRequired());
  static final List<FieldSpec> ITERATIVE = concat(List.of(
      FieldSpec.section("pipeline", PIPELINE, "The stages.").asRequired(),
      FieldSpec.section("restart_policy", POLICY, "When a later stage may send the run back to an earlier one.")),
      ITERATION_FIELDS);
  static final List<FieldSpec> PATTERN = List.of(
      FieldSpec.section("iterative", ITERATIVE, "An iterative pipeline: stages in order, any of which may restart "
          + "an earlier one under the restart policy.").asRequired());
  /** A workflow-level restart_policy also carries what a pipeline declares next to it. */
  static final List<FieldSpec> WORKFLOW_POLICY = concat(POLICY, ITERATION_FIELDS);

  static final Set<String> PATTERN_FIELDS = FieldSpec.names(PATTERN);
  static final Set<String> ITERATIVE_FIELDS = FieldSpec.names(ITERATIVE);
  static final Set<String> PIPELINE_FIELDS = FieldSpec.names(PIPELINE);
  static final Set<String> STAGE_FIELDS = FieldSpec.names(STAGE);
  static final Set<String> POLICY_FIELDS = FieldSpec.names(POLICY);
  static final Set<String> WORKFLOW_POLICY_FIELDS = FieldSpec.names(WORKFLOW_POLICY);

  private static List<FieldSpec> concat(List<FieldSpec> a, List<FieldSpec> b) {
    List<FieldSpec> out = new ArrayList<>(a);
    out.addAll(b);
    return List.copyOf(out);
  }

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_-]*)\\s*}}");
  private static final Pattern STAGE_OUTPUT = Pattern.compile("stage-(\\d{1,4})-output");
  /** A raw block: its text is shown as written, so a placeholder inside it is not one. */
  private static final Pattern RAW = Pattern.compile("\\{%-?\\s*raw\\s*-?%}.*?\\{%-?\\s*endraw\\s*-?%}",
      Pattern.DOTALL);

  /** A compiled pipeline: its stage nodes as a node list the node loader reads, and its policy. */
  record Compiled(YNode.YSeq nodes, RestartPolicy policy, Map<String, InputSpec> implicitInputs,
      Map<String, Integer> stageNumbers) {}

  /** Compiles {@code workflow_pattern}; null when it is not usable (the problems say why). */
  static Compiled compile(YNode pattern, YNode agents, Set<String> declaredInputs, boolean defaultModel,
      Problems problems) {
    if (!(pattern instanceof YNode.YMap pm)) {
      problems.add(pattern.location(), "workflow_pattern", "expected a mapping with 'iterative', found "
          + pattern.describe());
      return null;
    }
    LoaderSupport.unknownFields(pm, PATTERN_FIELDS, "workflow_pattern.", problems);
    if (!(pm.get("iterative") instanceof YNode.YMap it)) {
      YNode n = pm.get("iterative");
      problems.add(n == null ? pm.location() : n.location(), "workflow_pattern.iterative",
          n == null ? "missing required field 'iterative' (the only pattern loopflow knows)"
              : "expected a mapping with 'pipeline', found " + n.describe());
      return null;
    }
    String base = "workflow_pattern.iterative";
    LoaderSupport.unknownFields(it, ITERATIVE_FIELDS, base + ".", problems);
    if (!(it.get("pipeline") instanceof YNode.YMap pl)) {
      YNode n = it.get("pipeline");
      problems.add(n == null ? it.location() : n.location(), base + ".pipeline", n == null
          ? "missing required field 'pipeline'" : "expected a mapping with 'stages', found " + n.describe());
      return null;
    }
    LoaderSupport.unknownFields(pl, PIPELINE_FIELDS, base + ".pipeline.", problems);
    String initial = pl.get("initial_prompt") == null ? null
        : LoaderSupport.string(pl.get("initial_prompt"), "initial_prompt", base + ".pipeline.initial_prompt",
            problems);
    if (!(pl.get("stages") instanceof YNode.YSeq stages) || stages.items().isEmpty()) {
      YNode n = pl.get("stages");
      problems.add(n == null ? pl.location() : n.location(), base + ".pipeline.stages",
          n == null ? "missing required field 'stages'" : "expected a non-empty list of stages, found "
              + n.describe());
      return null;
    }
    if (stages.items().size() > MAX_STAGES) {
      problems.add(stages.location(), base + ".pipeline.stages", "a pipeline has at most " + MAX_STAGES
          + " stages, found " + stages.items().size());
      return null;
    }
    // Identities first: any stage's template may name any stage.
    List<String> ids = new ArrayList<>();
    Map<String, Integer> numbers = new LinkedHashMap<>();
    for (int i = 0; i < stages.items().size(); i++) {
      String path = base + ".pipeline.stages[" + i + "]";
      YNode s = stages.items().get(i);
      String id = null;
      if (s instanceof YNode.YMap sm) {
        LoaderSupport.unknownFields(sm, STAGE_FIELDS, path + ".", problems);
        if (sm.get("agent_id") == null) {
          problems.add(sm.location(), path, "missing required field 'agent_id'");
        } else {
          id = LoaderSupport.string(sm.get("agent_id"), "agent_id", path + ".agent_id", problems);
          if (id != null && numbers.containsKey(id)) {
            problems.add(sm.get("agent_id").location(), path + ".agent_id", "stage '" + id
                + "' appears twice; each stage's agent_id is its node id and must be unique");
            id = null;
          }
        }
      } else {
        problems.add(s.location(), path, "expected a mapping with agent_id and prompt_template, found "
            + s.describe());
      }
      ids.add(id);
      if (id != null) {
        numbers.put(id, i + 1);
      }
    }
    Map<String, YNode.YMap> agentConfigs = agents(agents, numbers.keySet(), problems);
    RestartPolicy policy = policy(it.get("restart_policy"), it, base, List.copyOf(numbers.keySet()), problems);
    // Every stage can read the full outputs the truncation notice points to; with restarts on, it can ask for one.
    List<String> builtins = policy.enabled() ? List.of("shared_memory_read", "request_restart")
        : List.of("shared_memory_read");
    Map<String, InputSpec> implicit = new LinkedHashMap<>();
    List<YNode> nodes = new ArrayList<>();
    for (int i = 0; i < stages.items().size(); i++) {
      if (!(stages.items().get(i) instanceof YNode.YMap sm) || ids.get(i) == null) {
        continue;
      }
      String path = base + ".pipeline.stages[" + i + "]";
      YNode tpl = sm.get("prompt_template");
      String template = "";
      Location tplAt = sm.location();
      if (tpl == null) {
        problems.add(sm.location(), path, "missing required field 'prompt_template'");
      } else {
        template = LoaderSupport.string(tpl, "prompt_template", path + ".prompt_template", problems);
        tplAt = tpl.location();
      }
      if (template == null) {
        template = "";
      }
      String prompt = rewrite(template, i, initial, numbers, declaredInputs, implicit, tplAt,
          path + ".prompt_template", problems);
      if (i == 0 && initial != null && !mentionsPrevious(template)) {
        prompt = rewrite(initial, i, null, numbers, declaredInputs, implicit, tplAt,
            base + ".pipeline.initial_prompt", problems) + "\n\n" + prompt;
      }
      nodes.add(stageNode(ids.get(i), prompt, sm, tplAt, agentConfigs.get(ids.get(i)), i > 0 ? ids.get(i - 1)
          : null, builtins, defaultModel));
    }
    return new Compiled(new YNode.YSeq(stages.location(), nodes), policy, implicit, numbers);
  }

  private static boolean mentionsPrevious(String template) {
    Matcher m = PLACEHOLDER.matcher(RAW.matcher(template).replaceAll(""));
    while (m.find()) {
      if (m.group(1).equals("previous")) {
        return true;
      }
    }
    return false;
  }

  private static Map<String, YNode.YMap> agents(YNode agents, Set<String> stageIds, Problems problems) {
    Map<String, YNode.YMap> out = new LinkedHashMap<>();
    if (agents == null) {
      return out;
    }
    if (!(agents instanceof YNode.YMap am)) {
      problems.add(agents.location(), "agents", "expected a mapping from agent id to its settings, found "
          + agents.describe());
      return out;
    }
    for (YNode.YMap.Entry e : am.entries().values()) {
      if (!stageIds.contains(e.key())) {
        problems.add(e.keyLocation(), "agents." + e.key(), "agent '" + e.key() + "' is not a stage of the "
            + "pipeline" + Names.suggest(e.key(), stageIds));
        continue;
      }
      if (e.value() instanceof YNode.YMap cfg) {
        if (STAGE_FIXED.stream().anyMatch(f -> cfg.get(f) != null)) {
          problems.add(cfg.location(), "agents." + e.key(), "an agent's settings cannot set 'id', 'name' or 'type': "
              + "the stage is an agent node named by its agent_id");
          continue;
        }
        out.put(e.key(), cfg);
      } else if (!(e.value() instanceof YNode.YScalar s && s.value() == null)) {
        problems.add(e.value().location(), "agents." + e.key(), "expected a mapping of agent settings (model, "
            + "system, tools, ...), found " + e.value().describe());
      }
    }
    return out;
  }

  /** The stage's node: {@code id}, {@code type: agent}, {@code prompt}, then the agent's own settings. */
  private static YNode stageNode(String id, String prompt, YNode.YMap stage, Location promptAt, YNode.YMap agent,
      String previousStage, List<String> builtins, boolean defaultModel) {
    Map<String, YNode.YMap.Entry> e = new LinkedHashMap<>();
    Location at = stage.location();
    put(e, "id", new YNode.YScalar(stage.get("agent_id").location(), id, false), at);
    put(e, "type", new YNode.YScalar(at, STAGE_KIND, false), at);
    put(e, "prompt", new YNode.YScalar(promptAt, prompt, false), promptAt);
    if (previousStage != null) {
      put(e, "depends_on", new YNode.YSeq(at, List.of(new YNode.YScalar(at, previousStage, false))), at);
    }
    if (stage.get("output_schema") != null) {
      put(e, "output_schema", stage.get("output_schema"), stage.get("output_schema").location());
    }
    if (agent != null) {
      for (YNode.YMap.Entry a : agent.entries().values()) {
        if (!e.containsKey(a.key())) {
          e.put(a.key(), a);
        }
      }
    }
    e.put("tools", tools(e.get("tools"), builtins, at));
    if (!defaultModel && !e.containsKey("model")) {
      // A pipeline names no model unless its agents do: the first provider the environment configures, else the
      // labelled mock.
      put(e, "model", new YNode.YScalar(at, "auto", false), at);
    }
    return new YNode.YMap(at, e);
  }

  /** The agent's own tools (kept as written, so their problems point at them) plus the stage built-ins. */
  private static YNode.YMap.Entry tools(YNode.YMap.Entry declared, List<String> builtins, Location at) {
    List<YNode> items = new ArrayList<>();
    Location listAt = at;
    if (declared != null && declared.value() instanceof YNode.YSeq seq) {
      items.addAll(seq.items());
      listAt = seq.location();
    } else if (declared != null) {
      return declared; // not a list: the agent node reports it
    }
    for (String b : builtins) {
      boolean present = items.stream().anyMatch(i -> i instanceof YNode.YScalar sc && b.equals(sc.value())
          || i instanceof YNode.YMap m && m.has(b));
      if (!present) {
        items.add(new YNode.YScalar(listAt, b, false));
      }
    }
    return new YNode.YMap.Entry("tools", declared == null ? at : declared.keyLocation(),
        new YNode.YSeq(listAt, items));
  }

  private static void put(Map<String, YNode.YMap.Entry> e, String key, YNode value, Location at) {
    e.put(key, new YNode.YMap.Entry(key, at, value));
  }

  /**
   * Rewrites the pipeline's placeholders in one template. Only bare names are placeholders; anything else between
   * braces ({@code {{ input.x | upper }}}) is an ordinary template expression and is left alone.
   */
  static String rewrite(String template, int stageIndex, String initial, Map<String, Integer> stages,
      Set<String> declaredInputs, Map<String, InputSpec> implicit, Location at, String path, Problems problems) {
    Matcher raw = RAW.matcher(template);
    StringBuilder out = new StringBuilder();
    int last = 0;
    while (raw.find()) {
      out.append(rewriteOutsideRaw(template.substring(last, raw.start()), stageIndex, initial, stages,
          declaredInputs, implicit, at, path, problems)).append(raw.group());
      last = raw.end();
    }
    return out.append(rewriteOutsideRaw(template.substring(last), stageIndex, initial, stages, declaredInputs,
        implicit, at, path, problems)).toString();
  }

  private static String rewriteOutsideRaw(String template, int stageIndex, String initial,
      Map<String, Integer> stages, Set<String> declaredInputs, Map<String, InputSpec> implicit, Location at,
      String path, Problems problems) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String name = m.group(1);
      String replacement;
      Matcher so = STAGE_OUTPUT.matcher(name);
      if (name.equals("previous")) {
        if (stageIndex == 0) {
          // The first stage's previous output is the pipeline's initial prompt (workflow text, not a value).
          replacement = initial == null ? "" : rewrite(initial, 0, null, stages, declaredInputs, implicit, at,
              path, problems);
        } else {
          replacement = "{{ pipeline['stage-" + stageIndex + "-output'] }}";
        }
      } else if (name.equals("all-outputs")) {
        replacement = "{{ pipeline['all-outputs'] }}";
      } else if (so.matches()) {
        int n = Integer.parseInt(so.group(1));
        if (n < 1 || n > stages.size()) {
          problems.add(at, path, "'{{" + name + "}}' names no stage: the pipeline has " + stages.size()
              + " stage" + (stages.size() == 1 ? "" : "s") + " (stage-1-output .. stage-" + stages.size()
              + "-output)");
          replacement = "";
        } else {
          // The value's name, whatever zeros the template wrote (stage-01-output is stage 1's).
          replacement = "{{ pipeline['stage-" + n + "-output'] }}";
        }
      } else if (stages.containsKey(name)) {
        replacement = "{{ pipeline['" + name + "'] }}";
      } else if (name.contains("-")) {
        problems.add(at, path, "'{{" + name + "}}' is not a pipeline value: use previous, all-outputs, "
            + "stage-N-output or a stage's agent_id" + Names.suggest(name, stages.keySet()));
        replacement = "";
      } else if (TemplateScope.ROOTS.contains(name) || name.equals("pipeline")) {
        replacement = m.group(0);
      } else {
        if (!declaredInputs.contains(name)) {
          implicit.putIfAbsent(name, new InputSpec(name, "string", null, true, "", "used by a pipeline stage"));
        }
        replacement = "{{ input['" + name + "'] }}";
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** A pipeline's policy: {@code restart_policy} plus the iterative pattern's own fields. */
  private static RestartPolicy policy(YNode policy, YNode.YMap owner, String base, List<String> stages,
      Problems problems) {
    return read(policy, owner, base, base + ".restart_policy", POLICY_FIELDS, stages, problems);
  }

  /** A workflow-level {@code restart_policy:} (an ordinary graph whose nodes may request restarts). */
  static RestartPolicy workflowPolicy(YNode policy, Problems problems) {
    if (!(policy instanceof YNode.YMap pm)) {
      problems.add(policy.location(), "restart_policy", "expected a mapping (enabled, restartable_stages, ...), "
          + "found " + policy.describe());
      return null;
    }
    return read(pm, pm, "restart_policy", "restart_policy", WORKFLOW_POLICY_FIELDS, List.of(), problems);
  }

  private static RestartPolicy read(YNode policy, YNode.YMap owner, String ownerPath, String path,
      Set<String> fields, List<String> stages, Problems problems) {
    YNode.YMap pm = null;
    if (policy != null) {
      if (policy instanceof YNode.YMap m) {
        pm = m;
        LoaderSupport.unknownFields(m, fields, path + ".", problems);
      } else {
        problems.add(policy.location(), path, "expected a mapping (enabled, restartable_stages, ...), found "
            + policy.describe());
      }
    }
    // Absent restart_policy: restarts are off and outputs are not validated (a plain pipeline).
    boolean enabled = pm != null && bool(pm.get("enabled"), "enabled", path, false, problems);
    List<String> restartable = pm == null ? List.of() : strings(pm.get("restartable_stages"),
        "restartable_stages", path, problems);
    int cooldown = pm == null || pm.get("cooldown_seconds") == null ? 0
        : orDefault(LoaderSupport.integer(pm.get("cooldown_seconds"), COOLDOWN, path + ".cooldown_seconds",
            problems), 0);
    boolean reset = pm != null && bool(pm.get("reset_shared_memory"), "reset_shared_memory", path, false, problems);
    boolean preserve = pm == null || bool(pm.get("preserve_outputs"), "preserve_outputs", path, true, problems);
    boolean keep = pm != null && bool(pm.get("keep_shared_memory"), "keep_shared_memory", path, false, problems);
    int retries = pm == null || !enabled ? 0 : pm.get("max_validation_retries") == null ? 2
        : orDefault(LoaderSupport.integer(pm.get("max_validation_retries"), VALIDATION_RETRIES,
            path + ".max_validation_retries", problems), 2);
    int max = owner.get("max_iterations") == null ? 3
        : orDefault(LoaderSupport.integer(owner.get("max_iterations"), ITERATIONS, ownerPath + ".max_iterations",
            problems), 3);
    List<String> triggers = strings(owner.get("restart_triggers"), "restart_triggers", ownerPath, problems);
    String topic = RestartPolicy.DEFAULT_TOPIC;
    if (owner.get("restart_topic") != null) {
      String t = LoaderSupport.string(owner.get("restart_topic"), "restart_topic", ownerPath + ".restart_topic",
          problems);
      if (t != null && t.isBlank()) {
        problems.add(owner.get("restart_topic").location(), ownerPath + ".restart_topic",
            "'restart_topic' cannot be empty");
      } else if (t != null) {
        topic = t;
      }
    }
    Edge.OnExhausted onExhausted = owner.get("on_exhausted") == null ? Edge.OnExhausted.FAIL
        : LoaderSupport.onExhausted(owner.get("on_exhausted"), ownerPath + ".on_exhausted", Edge.OnExhausted.FAIL,
            problems);
    if (!stages.isEmpty()) {
      unknownStages(restartable, pm == null ? null : pm.get("restartable_stages"), path + ".restartable_stages",
          stages, problems);
      unknownStages(triggers, owner.get("restart_triggers"), ownerPath + ".restart_triggers", stages, problems);
    }
    return new RestartPolicy(enabled, restartable, cooldown, reset, preserve, retries, max, triggers, topic,
        onExhausted == null ? Edge.OnExhausted.FAIL : onExhausted, keep, stages);
  }

  /** Checks that a workflow-level policy names only top-level nodes. */
  static void checkNodeNames(RestartPolicy p, YNode policy, Set<String> ids, Problems problems) {
    if (p == null || !(policy instanceof YNode.YMap pm)) {
      return;
    }
    List<String> all = List.copyOf(ids);
    unknownStages(p.restartableStages(), pm.get("restartable_stages"), "restart_policy.restartable_stages", all,
        problems);
    unknownStages(p.restartTriggers(), pm.get("restart_triggers"), "restart_policy.restart_triggers", all,
        problems);
  }

  private static void unknownStages(List<String> named, YNode at, String path, List<String> stages,
      Problems problems) {
    for (String s : named) {
      if (!stages.contains(s)) {
        problems.add(at.location(), path, "'" + s + "' is not a " + (path.startsWith("restart_policy")
            ? "top-level node" : "stage") + Names.suggest(s, stages));
      }
    }
  }

  private static int orDefault(Integer v, int d) {
    return v == null ? d : v;
  }

  private static boolean bool(YNode n, String field, String path, boolean dflt, Problems problems) {
    if (n == null) {
      return dflt;
    }
    if (n instanceof YNode.YScalar s && s.value() instanceof Boolean b) {
      return b;
    }
    problems.add(n.location(), path + "." + field, "'" + field + "' must be true or false, found " + n.describe());
    return dflt;
  }

  private static List<String> strings(YNode n, String field, String path, Problems problems) {
    if (n == null) {
      return List.of();
    }
    if (!(n instanceof YNode.YSeq seq)) {
      problems.add(n.location(), path + "." + field, "'" + field + "' must be a list of ids, found "
          + n.describe());
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (YNode item : seq.items()) {
      if (item instanceof YNode.YScalar s && s.value() instanceof String str && !str.isBlank()) {
        out.add(str);
      } else {
        problems.add(item.location(), path + "." + field, "'" + field + "' must list ids as strings, found "
            + item.describe());
      }
    }
    return out;
  }
}
