package dev.loopflow.llm.internal.tools;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.exception.ToolArgumentsException;
import dev.langchain4j.exception.ToolExecutionException;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import dev.langchain4j.mcp.client.DefaultMcpClient;
import dev.langchain4j.mcp.client.McpClient;
import dev.langchain4j.mcp.client.transport.McpTransport;
import dev.langchain4j.mcp.client.transport.http.StreamableHttpMcpTransport;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.sandbox.SandboxPolicy;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.provider.ToolSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
  /** How long a tool call may take when the entry gives no {@code timeout}. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
  /** How long a server may take to start and answer {@code initialize}. */
  static final Duration STARTUP = Duration.ofSeconds(30);

  /** The server an {@code mcp:} entry describes, or null after reporting what is wrong with it. */
  static McpServer parse(NodeConfig cfg, Object entry, String at) {
    if (!(entry instanceof Map<?, ?> m)) {
      cfg.error("mcp", at + "expected {command: [program, args...]} or {url: ...}, found "
          + ToolOptions.describe(entry));
      return null;
    }
    if (!ToolOptions.known(cfg, m, Set.of("command", "env", "url", "timeout"), "an MCP server", at, "mcp")) {
      return null;
    }
    Duration timeout = ToolOptions.duration(cfg, m.get("timeout"), DEFAULT_TIMEOUT, "timeout", at, "mcp");
    if (timeout == null) {
      return null;
    }
    if (m.containsKey("command") == m.containsKey("url")) {
      cfg.error("mcp", at + "give exactly one of command: (a server process) or url: (a streamable HTTP server)");
      return null;
    }
    if (m.containsKey("url")) {
      if (m.containsKey("env")) {
        cfg.error("mcp", at + "env: applies to a server process (command:), not to a server at a url");
        return null;
      }
      if (!(m.get("url") instanceof String url) || !url.matches("(?i)https?://[^\\s/?#]+.*")) {
        cfg.error("mcp", at + "url must be an http:// or https:// URL, found "
            + ToolOptions.describe(m.get("url")));
        return null;
      }
      return new McpServer(null, Map.of(), url, timeout);
    }
    List<String> command = new ArrayList<>();
    if (m.get("command") instanceof List<?> argv && !argv.isEmpty()) {
      for (Object a : argv) {
        if (!(a instanceof String s) || s.isEmpty()) {
          cfg.error("mcp", at + "command must be a list of non-empty strings (the program and its arguments), "
              + "found " + ToolOptions.describe(a) + " in it");
          return null;
        }
        command.add(s);
      }
    } else {
      cfg.error("mcp", at + "command must be a list: the program and its arguments, e.g. [npx, -y, "
          + "some-mcp-server]; found " + ToolOptions.describe(m.get("command")));
      return null;
    }
    Map<String, String> env = new LinkedHashMap<>();
    if (m.get("env") instanceof Map<?, ?> e) {
      for (Map.Entry<?, ?> kv : e.entrySet()) {
        if (!(kv.getValue() instanceof String || kv.getValue() instanceof Number || kv.getValue() instanceof Boolean)) {
          cfg.error("mcp", at + "env." + kv.getKey() + " must be text, found "
              + ToolOptions.describe(kv.getValue()));
          return null;
        }
        env.put(String.valueOf(kv.getKey()), String.valueOf(kv.getValue()));
      }
    } else if (m.get("env") != null) {
      cfg.error("mcp", at + "env must be a mapping of variable name to value, found "
          + ToolOptions.describe(m.get("env")));
      return null;
    }
    return new McpServer(command, env, null, timeout);
  }

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
  Connection connect(NodeContext ctx, int index, SandboxPolicy sandbox) {
    McpTransport transport;
    if (command != null) {
      Map<String, String> environment = new HashMap<>(ctx.environment());
      environment.putAll(env);
      transport = new StdioTransport(command, environment, ctx.workingDirectory(), ctx, sandbox);
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
    } catch (LoopflowException e) {
      closeQuietly(transport); // a run that requires a sandbox this server cannot have: its own code says so
      throw e;
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
          .arguments(Json.compact(arguments)).build();
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
        boolean refusal = cause instanceof ToolExecutionException
            || cause instanceof ToolArgumentsException;
        throw new ToolError(refusal && cause.getMessage() != null ? cause.getMessage() : deepest(cause));
      }
    }
  }
}
