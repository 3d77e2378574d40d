package dev.loopflow.llm.internal.tools;

import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.provider.ToolSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code request_restart}: asks the engine to run the workflow again from an earlier stage. The request is
 * published on the run's command bus and decided after this node completes, under the workflow's restart policy;
 * a workflow without one refuses it at once ({@code restart_validation_failed}), which the model is told.
 */
final class RestartTool implements Tool {
  static final String NAME = "request_restart";

  private static final Map<String, Object> PARAMETERS = Params.object(Params.props(
      "target_stage_id", Params.string("the id of the stage to run again from"),
      "reason", Params.string("why the earlier stage must run again"),
      "parameters", Map.of("type", "object", "additionalProperties", Map.of("type", "string"),
          "description", "optional text values for the restarted stage")),
      List.of("target_stage_id", "reason"));
  private static final ToolSpec SPEC = new ToolSpec(NAME, "Requests that the workflow restart from an earlier stage "
      + "(decided by the engine after this step ends).", PARAMETERS);
  private static final JsonSchemas.Compiled SCHEMA = Params.compile(PARAMETERS);

  @Override
  public ToolSpec spec() {
    return SPEC;
  }

  @Override
  public JsonSchemas.Compiled schema() {
    return SCHEMA;
  }

  @Override
  public Object call(NodeContext ctx, Map<String, Object> args) {
    Map<String, String> parameters = new LinkedHashMap<>();
    if (args.get("parameters") instanceof Map<?, ?> m) {
      m.forEach((k, v) -> parameters.put(String.valueOf(k), String.valueOf(v)));
    }
    long seq = ctx.requestRestart((String) args.get("target_stage_id"), (String) args.get("reason"), parameters);
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("request", seq);
    result.put("status", "requested: the engine decides after this step ends");
    return result;
  }
}
