package dev.loopflow.core.spi;

import java.util.Map;

/**
 * Chooses a router branch with an LLM. The core router calls it when its routes are described in words and
 * a {@code model} is given; the LLM module provides the implementation.
 */
public interface BranchChooser {
  /**
   * @param routes branch name → description, in the author's order
   * @return the chosen branch (one of the route names) and the call's usage
   */
  Choice choose(NodeContext context, String model, String instructions, Map<String, String> routes, Object value);

  record Choice(String branch, String reason, Usage usage) {}
}
