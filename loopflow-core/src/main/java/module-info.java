/**
 * The engine: workflow model, loading and validation, templates, the scheduler, the node SPI, events and the store
 * SPI. Every package except {@code dev.loopflow.core.internal.*} is API; the internal packages are not exported
 * and no other module may depend on them.
 *
 * <p>LuaJ (the sandboxed {@code script} language) cannot be a module: luaj-jse 3.0.1 has classes in the unnamed
 * package ({@code lua}, {@code luac}, {@code luajc}), so it is neither an automatic module nor nameable here. It
 * stays on the class path and this module reads the class path's unnamed module: at compile time with
 * {@code --add-reads} (see this module's pom), at run time through {@code BuiltinHandlers}, before the first Lua
 * class is touched.
 */
module dev.loopflow.core {
  requires transitive com.fasterxml.jackson.databind; // expr.Json hands out its ObjectMapper
  requires com.fasterxml.jackson.dataformat.yaml;
  requires com.fasterxml.jackson.datatype.jsr310;
  requires org.yaml.snakeyaml; // the YAML reader keeps positions from the parser's events
  requires com.networknt.schema;
  requires java.net.http;
  requires jinjava;

  exports dev.loopflow.core;
  exports dev.loopflow.core.error;
  exports dev.loopflow.core.event;
  exports dev.loopflow.core.expr;
  exports dev.loopflow.core.graph;
  exports dev.loopflow.core.model;
  exports dev.loopflow.core.run;
  exports dev.loopflow.core.sandbox;
  exports dev.loopflow.core.schema;
  exports dev.loopflow.core.secrets;
  exports dev.loopflow.core.similarity;
  exports dev.loopflow.core.spi;
  exports dev.loopflow.core.store;
  exports dev.loopflow.core.time;
  exports dev.loopflow.core.yaml;

  uses dev.loopflow.core.spi.NodeHandler;
  uses dev.loopflow.core.Loopflow.ServiceProvider;
}
