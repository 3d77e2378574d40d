package dev.loopflow.core.schema;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a workflow file may say, as tables: the top-level fields, the fields every node takes, the kinds the loader
 * interprets itself, the forms a node may be written in, what a node id may be. The loader checks files against
 * exactly these tables and {@link WorkflowSchema} describes them, so the published schema cannot describe a
 * different format; the engine hands out the loader's ({@code Loopflow#schema()}).
 */
public interface Vocabulary {
  /** The top-level fields. */
  List<FieldSpec> topLevel();

  /** A workflow gives at least one of these (nodes, or a pipeline). */
  List<String> topLevelOneRequired();

  /** The top-level fields a pipeline (workflow_pattern) may not have. */
  List<String> notWithPipeline();

  /** The top-level fields only a pipeline may have. */
  List<String> onlyWithPipeline();

  /** The kind of a pipeline stage's node, whose fields {@code agents:} sets. */
  String stageKind();

  /** The node fields a stage sets itself, which its {@code agents:} settings cannot. */
  List<String> stageFixedFields();

  /** The fields every node may have. */
  List<FieldSpec> commonNodeFields();

  /** The common fields a node of {@code kind} takes (a loop node takes no retry). */
  List<FieldSpec> commonNodeFields(String kind);

  /** The kinds the loader interprets itself: control nodes, loops and loop markers. */
  Collection<NodeKindSpec> builtInKinds();

  /** Shorthand keys and the kind each implies, in the order they are tried. */
  Map<String, String> shorthands();

  /** The shorthand keys whose mapping value holds the node's fields ({@code loop_group: {...}}). */
  Set<String> fieldsShorthands();

  /** Other names {@code type:} accepts, and the kind each stands for. */
  Map<String, String> typeAliases();

  /** {@code uses:} actions and the kind each stands for. */
  Map<String, String> actions();

  /** Under {@code type:}, the key whose mapping holds the node's fields. */
  String typedFieldsKey();

  /** Under {@code uses:}, the key holding the action's fields. */
  String actionFieldsKey();

  /** A node id: this regular expression, and none of {@link #reservedIds()}. */
  String idPattern();

  /** The ids no node may have. */
  Set<String> reservedIds();
}
