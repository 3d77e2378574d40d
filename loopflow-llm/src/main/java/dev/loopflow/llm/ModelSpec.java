package dev.loopflow.llm;

import java.util.Locale;
import java.util.Map;

/**
 * A {@code provider:model} reference. Without a prefix the provider is inferred from the model name
 * ({@code gpt-*}, {@code o1*}, {@code o3*}, {@code o4*} → openai; {@code claude*} → anthropic); anything else needs
 * a prefix. {@code auto} picks a real provider from the environment when one is configured (OPENAI_API_KEY or
 * OPENAI_BASE_URL → openai:gpt-4o-mini, OLLAMA_BASE_URL → ollama:$OLLAMA_MODEL or llama3.2) and the mock
 * provider otherwise.
 */
record ModelSpec(String provider, String model) {
  static final String DEFAULT_ANTHROPIC = "claude-sonnet-4-5";

  static ModelSpec parse(String spec, String providerHint, Map<String, String> env) {
    if (spec == null || spec.isBlank()) {
      if ("anthropic".equals(providerHint)) {
        return new ModelSpec("anthropic", DEFAULT_ANTHROPIC);
      }
      return null;
    }
    String s = spec.strip();
    if (s.equals("auto")) {
      if (notBlank(env.get("OPENAI_API_KEY")) || notBlank(env.get("OPENAI_BASE_URL"))) {
        return new ModelSpec("openai", env.getOrDefault("OPENAI_MODEL", "gpt-4o-mini"));
      }
      if (notBlank(env.get("OLLAMA_BASE_URL"))) {
        return new ModelSpec("ollama", env.getOrDefault("OLLAMA_MODEL", "llama3.2"));
      }
      return new ModelSpec("mock", "auto");
    }
    int colon = s.indexOf(':');
    if (colon > 0) {
      String p = s.substring(0, colon).toLowerCase(Locale.ROOT);
      if (p.equals("openai") || p.equals("anthropic") || p.equals("ollama") || p.equals("mock")) {
        return new ModelSpec(p, s.substring(colon + 1));
      }
    }
    if (providerHint != null) {
      return new ModelSpec(providerHint, s);
    }
    String lower = s.toLowerCase(Locale.ROOT);
    if (lower.startsWith("gpt-") || lower.matches("o[134](-.*)?")) {
      return new ModelSpec("openai", s);
    }
    if (lower.startsWith("claude")) {
      return new ModelSpec("anthropic", s);
    }
    return new ModelSpec(null, s);
  }

  private static boolean notBlank(String s) {
    return s != null && !s.isBlank();
  }

  @Override
  public String toString() {
    return provider + ":" + model;
  }
}
