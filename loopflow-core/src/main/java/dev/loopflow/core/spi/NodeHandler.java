package dev.loopflow.core.spi;

import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import java.util.Set;

/**
 * Implements one work-node kind ({@code shell}, {@code llm}, ...). Implementations must be stateless.
 *
 * <p>{@link #spec()} is the one description of the kind's configuration: its name, its fields and the groups they
 * form. The kind's name and the fields the loader accepts derive from it; the loader refuses a node that gives two
 * fields of one of its {@code atMostOne} groups before {@link #compile} is called (the node is reported and not
 * compiled); and the JSON Schema of the workflow format is written from it. So a handler states each of these once
 * and they cannot differ. Everything else about the node's fields, a missing field included (each kind words it for
 * itself), is checked by {@code compile} through {@link NodeConfig}, which reports it.
 */
public interface NodeHandler {
  /**
   * What this kind's fields are, for the loader, for the JSON Schema of the workflow format and for editors. A
   * handler that does not describe its fields gives their names as {@link FieldSpec#any FieldSpec.any}, e.g.
   * {@code NodeKindSpec.of("notify", null, List.of(FieldSpec.any("channel", null)))}.
   */
  NodeKindSpec spec();

  /** The kind, as written in {@code type:}: the spec's. */
  default String kind() {
    return spec().kind();
  }

  /**
   * The kind-specific fields this handler accepts (the spec's, aliases included); anything else in the node is an
   * "unknown field" error.
   */
  default Set<String> fields() {
    return spec().fieldNames();
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
