package dev.loopflow.core.spi;

import java.util.Set;

/**
 * Knows which LLM calls have a price. The LLM module provides it; the loader uses it to check the providers named
 * in a workflow's {@code prices} section, and that an LLM-chosen router under a {@code max_usd} budget calls a
 * priced model.
 */
public interface ModelPrices {
  /** The providers a {@code prices} section may name. */
  Set<String> providers();

  /**
   * Why calls to {@code model} (a model reference as written in a workflow, e.g. {@code ollama:llama3.2}) would have
   * no known price, given the workflow's {@code prices} section (plain data, or null), with how to give it one; null
   * when they have a price.
   */
  String unpriced(String model, Object pricesSection);
}
