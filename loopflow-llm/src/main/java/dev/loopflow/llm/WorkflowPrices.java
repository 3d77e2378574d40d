package dev.loopflow.llm;

import dev.loopflow.core.spi.ModelPrices;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.provider.ModelPrice;
import dev.loopflow.llm.provider.Pricing;
import dev.loopflow.llm.provider.Provider;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The prices a workflow's calls are counted with: the bundled table, overridden and extended by the workflow's
 * {@code prices} section (provider → model → {input, output, cache_read, cache_write} in USD per million tokens,
 * already checked by the loader). The mock provider is always free. Also the engine's {@link ModelPrices} service,
 * so the loader can check LLM-chosen routers the same way llm nodes check themselves.
 */
final class WorkflowPrices implements ModelPrices {
  static final NodeContext.TokenPrice FREE = new NodeContext.TokenPrice(BigDecimal.ZERO, BigDecimal.ZERO);
  private static final Set<String> PROVIDERS = Arrays.stream(Provider.values()).map(Provider::id)
      .collect(Collectors.toUnmodifiableSet());

  /** The price table for a workflow whose {@code prices} section is {@code section} (plain data, or null). */
  static Pricing pricing(Object section) {
    if (!(section instanceof Map<?, ?> providers) || providers.isEmpty()) {
      return Pricing.defaults();
    }
    Map<String, Map<String, ModelPrice>> overrides = new HashMap<>();
    providers.forEach((provider, models) -> {
      if (models instanceof Map<?, ?> m) {
        m.forEach((model, price) -> {
          if (price instanceof Map<?, ?> p && p.get("input") instanceof Number in
              && p.get("output") instanceof Number out) {
            overrides.computeIfAbsent(String.valueOf(provider), k -> new HashMap<>()).put(String.valueOf(model),
                new ModelPrice(decimal(in), decimal(out),
                    p.get("cache_read") instanceof Number read ? decimal(read) : null,
                    p.get("cache_write") instanceof Number write ? decimal(write) : null));
          }
        });
      }
    });
    return Pricing.defaults().withOverrides(overrides);
  }

  /** What a call to {@code spec} costs per token; null when unknown. */
  static NodeContext.TokenPrice price(Pricing pricing, ModelSpec spec) {
    if ("mock".equals(spec.provider())) {
      return FREE;
    }
    return pricing.price(spec.provider(), spec.model())
        .map(p -> new NodeContext.TokenPrice(p.inputPerMillion(), p.outputPerMillion(), p.cacheReadPerMillion(),
            p.cacheWritePerMillion()))
        .orElse(null);
  }

  /** Why calls to {@code spec} have no known price, with how to give it one; null when they have one. */
  static String unpriced(Pricing pricing, ModelSpec spec) {
    if (spec == null || spec.provider() == null || price(pricing, spec) != null) {
      return null;
    }
    return "model '" + spec + "' has no known price, so its calls cannot be counted against max_usd; give it a price "
        + "in USD per million tokens in the workflow's prices section, e.g. prices: {" + spec.provider() + ": {\""
        + spec.model() + "\": {input: <USD>, output: <USD>}}}";
  }

  @Override
  public Set<String> providers() {
    return PROVIDERS;
  }

  @Override
  public String unpriced(String model, Object pricesSection) {
    return unpriced(pricing(pricesSection), ModelSpec.parse(model, null, Map.of()));
  }

  /** From the number's text: a double's binary noise must not reach a price. */
  private static BigDecimal decimal(Number n) {
    return n instanceof BigDecimal b ? b : new BigDecimal(n.toString());
  }
}
