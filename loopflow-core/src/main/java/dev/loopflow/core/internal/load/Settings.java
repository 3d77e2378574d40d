package dev.loopflow.core.internal.load;

import dev.loopflow.core.internal.util.Names;
import dev.loopflow.core.internal.yaml.YNode;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Limits;
import dev.loopflow.core.model.StateMerge;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The workflow's settings sections: {@code defaults}, {@code budget} (also a loop's own), {@code limits} and
 * {@code state}. Each reads its mapping, reports unknown and ill-typed fields, and falls back to "not set".
 */
final class Settings {
  private Settings() {}

  static final Set<String> DEFAULTS_FIELDS = Set.of("model", "temperature", "max_tokens", "system", "timeout");
  static final Set<String> BUDGET_FIELDS = Set.of("max_usd", "max_tokens", "max_llm_calls");
  static final Set<String> LIMITS_FIELDS = Set.of("max_steps", "timeout", "concurrency");
  static final Set<String> MERGES = Set.of("append", "replace");

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
      LoaderSupport.number(m.get("temperature"), "temperature", 0, "defaults.temperature", problems);
    }
    if (m.get("max_tokens") != null) {
      LoaderSupport.integer(m.get("max_tokens"), "max_tokens", 1, Integer.MAX_VALUE, "defaults.max_tokens", problems);
    }
    if (m.get("timeout") != null) {
      LoaderSupport.duration(m.get("timeout"), "timeout", "defaults.timeout", problems);
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
        : LoaderSupport.number(m.get("max_usd"), "max_usd", 0, path + ".max_usd", problems);
    Long tokens = m.get("max_tokens") == null ? null
        : LoaderSupport.longValue(m.get("max_tokens"), "max_tokens", 0, path + ".max_tokens", problems);
    Integer calls = m.get("max_llm_calls") == null ? null
        : LoaderSupport.integer(m.get("max_llm_calls"), "max_llm_calls", 0, Integer.MAX_VALUE,
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
        : LoaderSupport.integer(m.get("max_steps"), "max_steps", 1, 100_000_000, "limits.max_steps", problems);
    Duration timeout = m.get("timeout") == null ? null
        : LoaderSupport.duration(m.get("timeout"), "timeout", "limits.timeout", problems);
    Integer conc = m.get("concurrency") == null ? null
        : LoaderSupport.integer(m.get("concurrency"), "concurrency", 1, 1024, "limits.concurrency", problems);
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
        LoaderSupport.unknownFields(vm, Set.of("merge"), path + ".", problems);
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
