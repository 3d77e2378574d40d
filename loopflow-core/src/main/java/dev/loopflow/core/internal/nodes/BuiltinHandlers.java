package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.spi.NodeHandler;
import java.util.List;

/** The handlers every engine has. */
public final class BuiltinHandlers {
  private BuiltinHandlers() {}

  public static List<NodeHandler> all() {
    readLuaJ();
    return List.of(new ShellHandler(), new ScriptHandler(), new TransformHandler(), new ValidatorHandler(),
        new HttpHandler());
  }

  /**
   * LuaJ cannot be a module (luaj-jse has classes in the unnamed package), so on the module path it is on the class
   * path, which a named module does not read. This module adds that edge before any class of the script handler is
   * linked: a Lua class extends or calls LuaJ classes, and linking it without the edge fails with an
   * IllegalAccessError. Every engine gets its script handler here, so this runs before any script compiles. On the
   * class path there is nothing to do: the unnamed module reads everything.
   */
  private static void readLuaJ() {
    Module self = BuiltinHandlers.class.getModule();
    if (!self.isNamed()) {
      return;
    }
    try {
      self.addReads(Class.forName("org.luaj.vm2.Globals", false, BuiltinHandlers.class.getClassLoader()).getModule());
    } catch (ClassNotFoundException e) {
      // without LuaJ there is nothing to read; Lua scripts then fail exactly as they would on the class path
    }
  }
}
