package dev.loopflow.core.model;

import java.util.List;
import java.util.Objects;

/**
 * When and how nodes (a pipeline's stages) may send the run back to an earlier node: a restart is a runtime back
 * edge, decided under this policy each time a node completes. Validated once at load.
 *
 * @param enabled false: every restart request is refused ({@code restart_validation_failed}) and stage outputs
 *     are not validated
 * @param restartableStages the nodes a restart may target; empty: any
 * @param cooldownSeconds the least time between two restarts of the same target (0..3600)
 * @param resetSharedMemory whether an accepted restart clears the run's WORKFLOW shared-memory namespace
 * @param preserveOutputs whether the outputs of the target and later nodes stay readable until they are replaced
 * @param maxValidationRetries pipeline stages: how many times an output that does not validate is retried with
 *     a fresh session (0..3; 0 turns validation off)
 * @param maxIterations the iterations a run may have, the first included (1..100): a restart that would start
 *     iteration {@code maxIterations + 1} is refused with {@code max_iterations_exceeded}
 * @param restartTriggers the nodes that may request a restart; empty: any
 * @param restartTopic the topic restart requests are published on (a name for logs and tools)
 * @param onExhausted what a restart refused for {@code max_iterations_exceeded} does to the run: fail it (the
 *     default) or only refuse the request
 * @param keepWorkflowMemory whether the WORKFLOW shared-memory namespace outlives the run
 * @param stages a pipeline's stage ids in order; empty for an ordinary workflow
 */
public record RestartPolicy(boolean enabled, List<String> restartableStages, int cooldownSeconds,
    boolean resetSharedMemory, boolean preserveOutputs, int maxValidationRetries, int maxIterations,
    List<String> restartTriggers, String restartTopic, Edge.OnExhausted onExhausted, boolean keepWorkflowMemory,
    List<String> stages) {
  public static final String DEFAULT_TOPIC = "workflow.restart";
  /** The id of the loop whose passes are a restartable run's iterations; no node may use it. */
  public static final String LOOP_ID = "restart";

  public RestartPolicy {
    restartableStages = List.copyOf(restartableStages);
    restartTriggers = List.copyOf(restartTriggers);
    stages = List.copyOf(stages);
    Objects.requireNonNull(restartTopic, "restartTopic");
    Objects.requireNonNull(onExhausted, "onExhausted");
  }

  /** The journal kind of the execution that holds the restart decisions made at one point of a run. */
  public static final String DECISIONS_KIND = "restart";
  private static final String DECISIONS_SUFFIX = "~restart";

  /** The node id of the execution holding the decisions made after node {@code nodeId} completed. */
  public static String decisionsId(String nodeId) {
    return nodeId + DECISIONS_SUFFIX;
  }

  /**
   * The node after which a journaled execution's decisions were made, or null when the execution ({@code kind},
   * {@code nodeId}) holds no restart decisions. The one reading of {@link #decisionsId}.
   */
  public static String decidedAfter(String kind, String nodeId) {
    return DECISIONS_KIND.equals(kind) && nodeId.endsWith(DECISIONS_SUFFIX)
        ? nodeId.substring(0, nodeId.length() - DECISIONS_SUFFIX.length()) : null;
  }

  public boolean isPipeline() {
    return !stages.isEmpty();
  }
}
