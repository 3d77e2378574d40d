package dev.loopflow.core.spi;

import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import java.util.Set;

/** Implements one work-node kind ({@code shell}, {@code llm}, ...). Implementations must be stateless. */
public interface NodeHandler {
  /** The kind, as written in {@code type:}. */
  String kind();

  /** The kind-specific fields this handler accepts; anything else in the node is an "unknown field" error. */
  Set<String> fields();

  /**
   * What this kind's fields are, for the JSON Schema of the workflow format and for editors. The default knows only
   * their names ({@link FieldSpec.Type#ANY}); a handler that describes its fields should return them here and
   * answer {@link #fields()} with {@code spec().fieldNames()}, so the two cannot differ.
   */
  default NodeKindSpec spec() {
    return NodeKindSpec.of(kind(), null, fields().stream().sorted().map(f -> FieldSpec.any(f, null)).toList());
  }

  /**
   * The fields this kind's result may have besides {@code status}, {@code output} and {@code error} (which every
   * result may have), e.g. {@code stdout}, {@code stderr} and {@code exitCode} for a shell node. Loading reports
   * {@code {{ id.field }}} with a field outside them as an error; what lies beneath a field is not checked. Null
   * (the default) declares nothing, and references to this kind's fields are not checked.
   */
  default Set<String> resultFields() {
    return null;
  }

  /**
   * Validates the node's configuration and compiles its templates. Report every problem through {@code
   * config.error(...)} (do not throw); the returned program is discarded when any problem was reported.
   */
  NodeProgram compile(NodeConfig config);
}
