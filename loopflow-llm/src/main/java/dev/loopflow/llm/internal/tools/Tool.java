package dev.loopflow.llm.internal.tools;

import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.provider.ToolSpec;
import java.util.Map;

/** One tool a model may call. Implementations are thread-safe: calls of one reply run concurrently. */
interface Tool {
  ToolSpec spec();

  /**
   * The schema the arguments are checked against before {@link #call}; null when the tool checks them itself (an
   * MCP server, whose schema is its own).
   */
  JsonSchemas.Compiled schema();

  /**
   * Runs the tool with arguments that passed {@link #schema()}. Returns its result as plain data (text, or a value
   * the model gets as JSON). Throws {@link ToolError} for a failure the model should hear about; interruption is how
   * cancellation arrives and must not be swallowed.
   */
  Object call(NodeContext ctx, Map<String, Object> arguments) throws Exception;
}
