package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.spi.NodeHandler;
import java.util.List;

/** The handlers every engine has. */
public final class BuiltinHandlers {
  private BuiltinHandlers() {}

  public static List<NodeHandler> all() {
    return List.of(new ShellHandler(), new ScriptHandler(), new TransformHandler(), new ValidatorHandler(),
        new HttpHandler());
  }
}
