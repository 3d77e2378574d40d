package dev.loopflow.core.internal.plan;

import dev.loopflow.core.expr.Template;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.InputSpec;
import dev.loopflow.core.model.Limits;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.StateMerge;
import dev.loopflow.core.model.Workflow;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The engine's own access to what {@link Workflow} keeps from callers: its constructor (only the loader, after
 * validation, may create one) and its execution plan. {@code Workflow} hands both over when its class is
 * initialized; this package is not exported, so nothing outside the engine can reach them.
 */
public final class ModelAccess {
  /** Creates a workflow; its plan is computed from its nodes and edges. */
  @FunctionalInterface
  public interface WorkflowFactory {
    Workflow create(String name, String description, String file, String source, Map<String, InputSpec> inputs,
        Map<String, Object> defaults, Budget budget, Limits limits, List<Node> nodes, List<Edge> edges,
        Template output, Map<String, Object> blocks, Map<String, StateMerge> stateMerge,
        dev.loopflow.core.model.RestartPolicy restartPolicy);
  }

  private static volatile WorkflowFactory factory;
  private static volatile Function<Workflow, ExecGraph> plans;

  private ModelAccess() {}

  /** Called once, by {@link Workflow}'s class initializer. */
  public static void install(WorkflowFactory f, Function<Workflow, ExecGraph> p) {
    if (factory != null) {
      throw new IllegalStateException("model access is installed once");
    }
    plans = p;
    factory = f;
  }

  /** The factory the loader builds validated workflows with. */
  public static WorkflowFactory workflows() {
    WorkflowFactory f = factory;
    if (f == null) {
      initialize();
      f = factory;
    }
    return f;
  }

  /** The execution plan computed when {@code workflow} was created. */
  public static ExecGraph plan(Workflow workflow) {
    if (plans == null) {
      initialize();
    }
    return plans.apply(workflow);
  }

  private static void initialize() {
    try {
      Class.forName(Workflow.class.getName(), true, Workflow.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("the workflow model is missing from the class path", e);
    }
  }
}
