package dev.loopflow.core.spi;

import java.util.Set;

/** Implements one work-node kind ({@code shell}, {@code llm}, ...). Implementations must be stateless. */
public interface NodeHandler {
  /** The kind, as written in {@code type:}. */
  String kind();

  /** The kind-specific fields this handler accepts; anything else in the node is an "unknown field" error. */
  Set<String> fields();

  /**
   * Validates the node's configuration and compiles its templates. Report every problem through {@code
   * config.error(...)} (do not throw); the returned program is discarded when any problem was reported.
   */
  NodeProgram compile(NodeConfig config);
}
