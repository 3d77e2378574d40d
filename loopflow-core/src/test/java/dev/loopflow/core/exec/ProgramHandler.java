package dev.loopflow.core.exec;

import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeProgram;
import java.util.List;

/**
 * A node kind whose work is a Java function, for tests that need the common node fields ({@code retry},
 * {@code timeout}, {@code allow_failure}) on a Java node.
 */
record ProgramHandler(String kind, NodeProgram program) implements NodeHandler {
  @Override
  public NodeKindSpec spec() {
    return NodeKindSpec.of(kind, null, List.of());
  }

  @Override
  public NodeProgram compile(NodeConfig config) {
    return program;
  }
}
