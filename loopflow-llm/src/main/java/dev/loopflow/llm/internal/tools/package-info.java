/**
 * The tools an {@code agent} node offers its model: the built-in ones ({@code http}, {@code shell},
 * {@code request_restart}, {@code shared_memory_read}, {@code shared_memory_write}, {@code workflow}) and the tools
 * of MCP servers. {@link dev.loopflow.llm.internal.tools.ToolSet} checks a node's {@code tools:} and {@code mcp:}
 * at load; {@link dev.loopflow.llm.internal.tools.Toolbox} is one execution's set of tools (MCP servers started,
 * always closed) and the one place a model's tool call is checked and run: an unknown name or arguments that are
 * not a JSON object matching the tool's schema never run anything and go back to the model as the call's error.
 * Not exported: the agent node is the only user.
 */
package dev.loopflow.llm.internal.tools;
