package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Names;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Limits;
import dev.loopflow.core.model.StateMerge;
import dev.loopflow.core.sandbox.SandboxPolicy;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.yaml.YNode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The workflow's settings sections: {@code defaults}, {@code budget} (also a loop's own), {@code limits} and
 * {@code state}. Each reads its mapping, reports unknown and ill-typed fields, and falls back to "not set".
 */
final class Settings {
  private Settings() {}

  static final List<FieldSpec> DEFAULTS = List.of(
      FieldSpec.string("model", "The model of llm nodes that name none: provider:model, a bare model name, or auto."),
      FieldSpec.number("temperature", 0.0, null, "The temperature of llm nodes that set none."),
      FieldSpec.integer("max_tokens", 1, Integer.MAX_VALUE, "The reply limit of llm nodes that set none."),
      FieldSpec.string("system", "The system prompt of llm nodes that set none."),
      FieldSpec.duration("timeout", "Validated, but not applied to nodes: only a node's own timeout limits it."),
      SandboxPolicy.FIELD);
  static final List<FieldSpec> BUDGET = List.of(
      FieldSpec.number("max_usd", 0.0, null, "The most the LLM calls may cost, in USD (every model needs a price)."),
      FieldSpec.integer("max_tokens", 0, Long.MAX_VALUE, "The most tokens the LLM calls may use, input plus output."),
      FieldSpec.integer("max_llm_calls", 0, Integer.MAX_VALUE, "The most LLM calls that may be made."));
  static final List<FieldSpec> LIMITS = List.of(
      FieldSpec.integer("max_steps", 1, 100_000_000, "The most node executions a run may have (default 10000)."),
      FieldSpec.duration("timeout", "The wall-clock limit of the whole run."),
      FieldSpec.integer("concurrency", 1, 1024, "How many ready nodes may run at the same time (default 8)."));
  /** How a state key merges; the first is the default. */
  static final List<String> MERGES = LoaderSupport.lower(StateMerge.values());
  static final List<FieldSpec> MERGE = List.of(FieldSpec.choice("merge", MERGES, "replace: a write replaces the "
      + "value; append: the written value (or each of its elements) is added to the list the key holds.")
      .asRequired());
  /** A state key's merge: {@code key: append} or {@code key: {merge: append}}. */
  static final FieldSpec STATE_KEY = FieldSpec.oneOf("state", null, FieldSpec.find(MERGE, "merge"),
      FieldSpec.section("state", MERGE, "How writes to the key merge."));

  static final Set<String> DEFAULTS_FIELDS = FieldSpec.names(DEFAULTS);
  static final Set<String> BUDGET_FIELDS = FieldSpec.names(BUDGET);
  static final Set<String> LIMITS_FIELDS = FieldSpec.names(LIMITS);

  /** A budget field, for a budget section; {@code describe} says whose. */
  static FieldSpec budgetField(String whose) {
    return FieldSpec.section("budget", BUDGET, "Spending limits over " + whose + ": max_usd, max_tokens, "
        + "max_llm_calls.");
  }

  /** {@code defaults:} as plain values (handlers read them through their config), after checking each field. */
  static Map<String, Object> defaults(YNode n, Problems problems) {
    if (n == null) {
      return Map.of();
    }
    if (!(n instanceof YNode.YMap m)) {
      problems.add(n.location(), "defaults", "expected a mapping, found " + n.describe());
      return Map.of();
    }
    LoaderSupport.unknownFields(m, DEFAULTS_FIELDS, "defaults.", problems);
    if (m.get("model") != null) {
      LoaderSupport.string(m.get("model"), "model", "defaults.model", problems);
    }
    if (m.get("temperature") != null) {
      LoaderSupport.number(m.get("temperature"), "temperature", FieldSpec.find(DEFAULTS, "temperature").minimum()
          .doubleValue(), "defaults.temperature", problems);
    }
    if (m.get("max_tokens") != null) {
      LoaderSupport.integer(m.get("max_tokens"), FieldSpec.find(DEFAULTS, "max_tokens"), "defaults.max_tokens",
          problems);
    }
    if (m.get("timeout") != null) {
      LoaderSupport.duration(m.get("timeout"), "timeout", "defaults.timeout", problems);
    }
    if (m.get("sandbox") != null) {
      try {
        SandboxPolicy.of(m.get("sandbox").toPlain());
      } catch (IllegalArgumentException e) {
        problems.add(m.get("sandbox").location(), "defaults.sandbox", "defaults." + e.getMessage());
      }
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> plain = (Map<String, Object>) m.toPlain();
    return plain;
  }

  /** {@code defaults.timeout}, or null; its problems were reported by {@link #defaults}. */
  static Duration defaultTimeout(YNode n) {
    if (n instanceof YNode.YMap dm && dm.get("timeout") != null) {
      return LoaderSupport.duration(dm.get("timeout"), "timeout", "defaults.timeout", new Problems());
    }
    return null;
  }

  /** A spending limit: the run's {@code budget:} or a loop's; {@link Budget#NONE} when absent or not a mapping. */
  static Budget budget(YNode n, String path, Problems problems) {
    if (n == null) {
      return Budget.NONE;
    }
    if (!(n instanceof YNode.YMap m)) {
      problems.add(n.location(), path, "expected a mapping, found " + n.describe());
      return Budget.NONE;
    }
    LoaderSupport.unknownFields(m, BUDGET_FIELDS, path + ".", problems);
    Double usd = m.get("max_usd") == null ? null
        : LoaderSupport.number(m.get("max_usd"), "max_usd", FieldSpec.find(BUDGET, "max_usd").minimum().doubleValue(),
            path + ".max_usd", problems);
    Long tokens = m.get("max_tokens") == null ? null
        : LoaderSupport.longValue(m.get("max_tokens"), "max_tokens", FieldSpec.find(BUDGET, "max_tokens").minimum()
            .longValue(), path + ".max_tokens", problems);
    Integer calls = m.get("max_llm_calls") == null ? null
        : LoaderSupport.integer(m.get("max_llm_calls"), FieldSpec.find(BUDGET, "max_llm_calls"),
            path + ".max_llm_calls", problems);
    return new Budget(usd, tokens, calls);
  }

  static Limits limits(YNode n, Problems problems) {
    if (n == null) {
      return Limits.DEFAULTS;
    }
    if (!(n instanceof YNode.YMap m)) {
      problems.add(n.location(), "limits", "expected a mapping, found " + n.describe());
      return Limits.DEFAULTS;
    }
    LoaderSupport.unknownFields(m, LIMITS_FIELDS, "limits.", problems);
    Integer steps = m.get("max_steps") == null ? null
        : LoaderSupport.integer(m.get("max_steps"), FieldSpec.find(LIMITS, "max_steps"), "limits.max_steps",
            problems);
    Duration timeout = m.get("timeout") == null ? null
        : LoaderSupport.duration(m.get("timeout"), "timeout", "limits.timeout", problems);
    Integer conc = m.get("concurrency") == null ? null
        : LoaderSupport.integer(m.get("concurrency"), FieldSpec.find(LIMITS, "concurrency"), "limits.concurrency",
            problems);
    return new Limits(steps == null ? Limits.DEFAULT_MAX_STEPS : steps, timeout,
        conc == null ? Limits.DEFAULT_CONCURRENCY : conc);
  }

  /** {@code state: {key: {merge: append|replace}}}, or the short form {@code key: append}. */
  static Map<String, StateMerge> state(YNode n, Problems problems) {
    Map<String, StateMerge> out = new LinkedHashMap<>();
    if (n == null) {
      return out;
    }
    if (!(n instanceof YNode.YMap m)) {
      problems.add(n.location(), "state", "expected a mapping of state keys, found " + n.describe());
      return out;
    }
    for (YNode.YMap.Entry e : m.entries().values()) {
      String path = "state." + e.key();
      YNode v = e.value();
      YNode mergeNode = v;
      if (v instanceof YNode.YMap vm) {
        LoaderSupport.unknownFields(vm, FieldSpec.names(MERGE), path + ".", problems);
        mergeNode = vm.get("merge");
        if (mergeNode == null) {
          problems.add(v.location(), path, "missing required field 'merge' (append or replace)");
          continue;
        }
        path = path + ".merge";
      }
      String merge = LoaderSupport.string(mergeNode, "merge", path, problems);
      if (merge == null) {
        continue;
      }
      if (!MERGES.contains(merge)) {
        problems.add(mergeNode.location(), path, "unknown merge '" + merge + "'" + Names.suggest(merge, MERGES)
            + "; expected append or replace");
        continue;
      }
      out.put(e.key(), merge.equals("append") ? StateMerge.APPEND : StateMerge.REPLACE);
    }
    return out;
  }
}
