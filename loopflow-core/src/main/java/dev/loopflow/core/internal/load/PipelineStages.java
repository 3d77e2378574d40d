package dev.loopflow.core.internal.load;

import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.internal.exec.PipelineStage;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.yaml.YNode;
import java.util.ArrayList;
import java.util.List;

/** Wraps each loaded stage node's program in the pipeline's stage behaviour (validation retry, shared memory). */
final class PipelineStages {
  private PipelineStages() {}

  static List<Node> wrap(List<Node> nodes, Pipelines.Compiled pipeline, RestartPolicy policy, Problems problems) {
    List<Node> out = new ArrayList<>(nodes.size());
    for (Node n : nodes) {
      Integer num = pipeline.stageNumbers().get(n.id());
      if (num == null || !(n.body() instanceof Node.Work w)) {
        out.add(n);
        continue;
      }
      JsonSchemas.Compiled schema = PipelineStage.DEFAULT_SCHEMA;
      Object declared = stageSchema(pipeline, n.id());
      if (declared != null) {
        try {
          schema = JsonSchemas.compile(declared);
        } catch (IllegalArgumentException e) {
          problems.add(n.location(), "workflow_pattern.iterative.pipeline.stages[" + (num - 1) + "].output_schema",
              e.getMessage());
        }
      }
      String promptSource = promptSource(pipeline, n.id());
      out.add(ModelFactory.withBody(n, new Node.Work(PipelineStage.wrap(w.program(), n.id(), num,
          policy.maxValidationRetries(), schema, promptSource))));
    }
    return out;
  }

  private static Object stageSchema(Pipelines.Compiled pipeline, String id) {
    YNode.YMap m = stageNode(pipeline, id);
    return m != null && m.get("output_schema") != null ? m.get("output_schema").toPlain() : null;
  }

  private static String promptSource(Pipelines.Compiled pipeline, String id) {
    YNode.YMap m = stageNode(pipeline, id);
    return m != null && m.get("prompt") instanceof YNode.YScalar s ? String.valueOf(s.value()) : null;
  }

  private static YNode.YMap stageNode(Pipelines.Compiled pipeline, String id) {
    for (YNode item : pipeline.nodes().items()) {
      if (item instanceof YNode.YMap m && m.get("id") instanceof YNode.YScalar s && id.equals(s.value())) {
        return m;
      }
    }
    return null;
  }
}
