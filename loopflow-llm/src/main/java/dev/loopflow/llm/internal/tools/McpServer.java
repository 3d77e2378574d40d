package dev.loopflow.llm.internal.tools;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import dev.langchain4j.mcp.client.DefaultMcpClient;
import dev.langchain4j.mcp.client.McpClient;
import dev.langchain4j.mcp.client.transport.McpTransport;
import dev.langchain4j.mcp.client.transport.http.StreamableHttpMcpTransport;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.LoopflowException;
import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.provider.ToolSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One entry of a node's {@code mcp:}: a server started as a process ({@code command}, with extra {@code env}) or
 * reached at a streamable-HTTP {@code url}, and how long its calls may take ({@code timeout}). {@link #connect}
 * starts it for one execution through LangChain4j's MCP client and lists its tools.
 */
record McpServer(List<String> command, Map<String, String> env, String url, Duration timeout) {
  /** How long a server may take to start and answer {@code initialize}. */
  static final Duration STARTUP = Duration.ofSeconds(30);

  /** How the server is named in messages: its program, or its URL. */
  String label() {
    return command != null ? String.join(" ", command.subList(0, Math.min(3, command.size())))
        + (command.size() > 3 ? " ..." : "") : url;
  }

  /** A started server and the tools it offers. */
  record Connection(McpClient client, List<Tool> tools) {}

  /**
   * Starts the server and lists its tools. A server that cannot be started or does not answer fails the node
   * with {@code node_failed} naming it.
   */
  Connection connect(NodeContext ctx, int index) {
    McpTransport transport;
    if (command != null) {
      Map<String, String> environment = new HashMap<>(ctx.environment());
      environment.putAll(env);
      transport = new StdioTransport(command, environment, ctx.workingDirectory());
    } else {
      StreamableHttpMcpTransport.Builder b = StreamableHttpMcpTransport.builder().url(url).timeout(STARTUP);
      if (url.regionMatches(true, 0, "http:", 0, 5)) {
        b.setHttpVersion1_1(); // no TLS to negotiate HTTP/2 with; plain HTTP servers speak 1.1
      }
      transport = b.build();
    }
    McpClient client;
    try {
      client = new DefaultMcpClient.Builder()
          .transport(transport)
          .key("mcp-" + index)
          .clientName("loopflow")
          .clientVersion("1")
          .initializationTimeout(STARTUP)
          // The client's own limit is a backstop; calls are timed here (McpTool), where a timeout is an error.
          .toolExecutionTimeout(timeout.plusSeconds(30))
          .autoHealthCheck(false)
          .build();
    } catch (RuntimeException e) {
      closeQuietly(transport);
      throw failed(ctx, "did not start", e, transport);
    }
    try {
      List<Tool> tools = new ArrayList<>();
      for (ToolSpecification t : client.listTools()) {
        if (!ToolSpec.isValidName(t.name())) {
          throw new LoopflowException(ErrorCode.NODE_FAILED, "MCP server " + label() + " offers a tool named '"
              + Toolbox.abbreviate(String.valueOf(t.name()), 80) + "', which is not a valid tool name (1 to 64 "
              + "letters, digits, '_' or '-')", ctx.position());
        }
        Map<String, Object> parameters = t.parameters() == null ? Map.of("type", "object")
            : new LinkedHashMap<>(JsonSchemaElementJsonUtils.toMap(t.parameters()));
        tools.add(new McpTool(client, new ToolSpec(t.name(), t.description(), parameters), timeout, label()));
      }
      return new Connection(client, tools);
    } catch (LoopflowException e) {
      closeQuietly(client);
      throw e;
    } catch (RuntimeException e) {
      closeQuietly(client);
      throw failed(ctx, "did not list its tools", e, transport);
    }
  }

  private LoopflowException failed(NodeContext ctx, String what, RuntimeException e, McpTransport transport) {
    String why = deepest(e);
    String stderr = transport instanceof StdioTransport s ? s.stderrTail() : "";
    return new LoopflowException(ErrorCode.NODE_FAILED, "MCP server " + label() + " " + what + ": " + why + stderr,
        ctx.position(), e);
  }

  private static String deepest(Throwable e) {
    String message = e.getMessage();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        message = t.getClass().getSimpleName() + ": " + t.getMessage();
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return message == null ? e.getClass().getSimpleName() : message;
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // the failure being reported matters more
    }
  }

  /** One tool of an MCP server; its arguments are checked by the server, whose schema it is. */
  private record McpTool(McpClient client, ToolSpec spec, Duration timeout, String server) implements Tool {
    @Override
    public JsonSchemas.Compiled schema() {
      return null;
    }

    @Override
    public Object call(NodeContext ctx, Map<String, Object> arguments) throws Exception {
      ToolExecutionRequest request = ToolExecutionRequest.builder().id("call").name(spec.name())
          .arguments(dev.loopflow.core.expr.Json.compact(arguments)).build();
      CompletableFuture<ToolExecutionResult> f = new CompletableFuture<>();
      Thread worker = Thread.ofVirtual().start(() -> {
        try {
          f.complete(client.executeTool(request));
        } catch (RuntimeException e) {
          f.completeExceptionally(e);
        }
      });
      try {
        ToolExecutionResult r = f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (r.isError()) {
          throw new ToolError(r.resultText());
        }
        return r.resultText() == null ? "" : r.resultText();
      } catch (TimeoutException e) {
        worker.interrupt();
        throw new ToolError("the MCP server " + server + " did not answer within " + Toolbox.human(timeout));
      } catch (InterruptedException e) {
        worker.interrupt();
        throw e;
      } catch (ExecutionException e) {
        // The server's own refusal (isError, a JSON-RPC error) is its message; anything else also says what failed.
        Throwable cause = e.getCause();
        boolean refusal = cause instanceof dev.langchain4j.exception.ToolExecutionException
            || cause instanceof dev.langchain4j.exception.ToolArgumentsException;
        throw new ToolError(refusal && cause.getMessage() != null ? cause.getMessage() : deepest(cause));
      }
    }
  }
}
