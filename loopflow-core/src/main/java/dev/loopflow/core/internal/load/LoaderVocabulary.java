package dev.loopflow.core.internal.load;

import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.schema.Vocabulary;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The loader's own tables of what a workflow file may say, handed out as the {@link dev.loopflow.core.schema.Vocabulary}
 * that {@link dev.loopflow.core.schema.WorkflowSchema} describes: the same lists the loader checks files against.
 */
public final class LoaderVocabulary implements Vocabulary {
  /** The loader's tables. */
  public static final LoaderVocabulary INSTANCE = new LoaderVocabulary();

  private LoaderVocabulary() {}

  /** The top-level fields. */
  @Override
  public List<FieldSpec> topLevel() {
    return TopLevel.SPECS;
  }

  /** A workflow gives at least one of these (nodes, or a pipeline). */
  @Override
  public List<String> topLevelOneRequired() {
    return TopLevel.ONE_REQUIRED;
  }

  /** The top-level fields a pipeline (workflow_pattern) may not have. */
  @Override
  public List<String> notWithPipeline() {
    return TopLevel.NOT_WITH_PIPELINE;
  }

  /** The top-level fields only a pipeline may have. */
  @Override
  public List<String> onlyWithPipeline() {
    return TopLevel.ONLY_WITH_PIPELINE;
  }

  /** The kind of a pipeline stage's node, whose fields {@code agents:} sets. */
  @Override
  public String stageKind() {
    return Pipelines.STAGE_KIND;
  }

  /** The node fields a stage sets itself, which its {@code agents:} settings cannot. */
  @Override
  public List<String> stageFixedFields() {
    return Pipelines.STAGE_FIXED;
  }

  /** The fields every node may have. */
  @Override
  public List<FieldSpec> commonNodeFields() {
    return NodeKinds.COMMON;
  }

  /** The common fields a node of {@code kind} takes (a loop node takes no retry). */
  @Override
  public List<FieldSpec> commonNodeFields(String kind) {
    return NodeKinds.commonFor(kind);
  }

  /** The kinds the loader interprets itself: control nodes, loops and loop markers. */
  @Override
  public Collection<NodeKindSpec> builtInKinds() {
    return NodeKinds.BUILT_IN_KINDS.values();
  }

  /** Shorthand keys and the kind each implies, in the order they are tried. */
  @Override
  public Map<String, String> shorthands() {
    return NodeKinds.SHORTHANDS;
  }

  /** The shorthand keys whose mapping value holds the node's fields ({@code loop_group: {...}}). */
  @Override
  public Set<String> fieldsShorthands() {
    return NodeKinds.FIELDS_SHORTHANDS;
  }

  /** Other names {@code type:} accepts, and the kind each stands for. */
  @Override
  public Map<String, String> typeAliases() {
    return NodeKinds.ALIASES;
  }

  /** {@code uses:} actions and the kind each stands for. */
  @Override
  public Map<String, String> actions() {
    return NodeKinds.ACTIONS;
  }

  /** Under {@code type:}, the key whose mapping holds the node's fields. */
  @Override
  public String typedFieldsKey() {
    return NodeKinds.TYPED_FIELDS;
  }

  /** Under {@code uses:}, the key holding the action's fields. */
  @Override
  public String actionFieldsKey() {
    return NodeKinds.ACTION_FIELDS;
  }

  /** A node id: this regular expression, and none of {@link #reservedIds()}. */
  @Override
  public String idPattern() {
    return NodeLoader.ID_PATTERN;
  }

  @Override
  public Set<String> reservedIds() {
    return NodeLoader.RESERVED_IDS;
  }
}
