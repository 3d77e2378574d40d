/**
 * LLM nodes and the providers behind them. {@code dev.loopflow.llm} holds the llm and agent node handlers, the LLM
 * branch chooser and the mock scripts; {@code dev.loopflow.llm.provider} the chat client API (providers, retries,
 * prices); {@code dev.loopflow.llm.internal.tools} (not exported) the agent's tools. The handlers and the module's
 * services are found by the engine through {@link java.util.ServiceLoader}.
 */
module dev.loopflow.llm {
  requires transitive dev.loopflow.core;
  requires com.fasterxml.jackson.dataformat.yaml;
  requires java.net.http;
  requires langchain4j.anthropic;
  requires langchain4j.core;
  requires langchain4j; // the MCP client's tool results
  requires langchain4j.mcp;
  requires langchain4j.http.client;
  requires langchain4j.ollama;
  requires langchain4j.open.ai;

  exports dev.loopflow.llm;
  exports dev.loopflow.llm.provider;

  provides dev.loopflow.core.spi.NodeHandler with dev.loopflow.llm.LlmHandler, dev.loopflow.llm.AgentHandler;
  provides dev.loopflow.core.Loopflow.ServiceProvider with dev.loopflow.llm.LlmModule;
}
