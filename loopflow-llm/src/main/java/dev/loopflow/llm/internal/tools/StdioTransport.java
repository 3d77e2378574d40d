package dev.loopflow.llm.internal.tools;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.mcp.client.McpCallContext;
import dev.langchain4j.mcp.client.transport.McpOperationHandler;
import dev.langchain4j.mcp.client.transport.McpTransport;
import dev.langchain4j.mcp.protocol.McpClientMessage;
import dev.langchain4j.mcp.protocol.McpInitializationNotification;
import dev.langchain4j.mcp.protocol.McpInitializeRequest;
import dev.loopflow.core.sandbox.ProcessSandbox;
import dev.loopflow.core.sandbox.SandboxPolicy;
import dev.loopflow.core.spi.NodeContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/*
 * Design notes.
 *
 * MCP's stdio transport for LangChain4j's MCP client, in place of the one LangChain4j ships, which cannot set the
 * server's working directory, adds the JVM's own environment to the server's, and reads messages of any length.
 * Here the server runs in the run's working directory with exactly the run's environment plus the server's `env`,
 * contained by the agent node's sandbox like every process a node starts;
 * a message line longer than MAX_LINE_BYTES ends the connection (the server is stopped and pending calls fail);
 * stderr is read and its last MAX_STDERR_CHARS kept, for the message when the server dies; close() stops the
 * server and everything it started. Messages are newline-delimited JSON-RPC, as MCP's stdio transport defines.
 */
final class StdioTransport implements McpTransport {
  static final int MAX_LINE_BYTES = 16 << 20;
  static final int MAX_STDERR_CHARS = 2000;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final List<String> command;
  private final Map<String, String> environment;
  private final Path directory;
  private final StringBuilder stderr = new StringBuilder();
  private Process process;
  private OutputStream stdin;
  private volatile McpOperationHandler handler;
  private volatile boolean closed;

  private final NodeContext ctx;
  private final SandboxPolicy sandbox;

  StdioTransport(List<String> command, Map<String, String> environment, Path directory, NodeContext ctx,
      SandboxPolicy sandbox) {
    this.ctx = ctx;
    this.sandbox = sandbox;
    this.command = List.copyOf(command);
    this.environment = Map.copyOf(environment);
    this.directory = directory;
  }

  @Override
  public void start(McpOperationHandler operationHandler) {
    this.handler = operationHandler;
    try {
      process = ProcessSandbox.start(ctx, sandbox, command, environment, directory).process();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + command.get(0) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting " + command.get(0), e);
    }
    stdin = process.getOutputStream();
    // Platform threads: a virtual thread blocked reading a pipe holds its carrier for as long as the server runs,
    // and a few such servers would leave the engine's virtual threads no carrier to run on.
    Thread.ofPlatform().daemon().name("mcp-stdout-" + process.pid()).start(this::readMessages);
    Thread.ofPlatform().daemon().name("mcp-stderr-" + process.pid()).start(this::readStderr);
  }

  private void readMessages() {
    try (InputStream in = process.getInputStream()) {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      for (int b = in.read(); b >= 0; b = in.read()) {
        if (b != '\n') {
          if (line.size() >= MAX_LINE_BYTES) {
            stop("it sent a message longer than " + MAX_LINE_BYTES + " bytes");
            return;
          }
          line.write(b);
          continue;
        }
        String text = line.toString(StandardCharsets.UTF_8).strip();
        line.reset();
        if (text.isEmpty()) {
          continue;
        }
        JsonNode message;
        try {
          message = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
          continue; // a server's stray output line is not a message
        }
        if (message != null && message.isObject()) {
          handler.handle(message);
        }
      }
    } catch (IOException e) {
      // the stream closes when the server is stopped
    }
    if (!closed) {
      handler.cancelAllPendingOperations("the MCP server " + command.get(0) + " exited" + stderrTail());
    }
  }

  private void readStderr() {
    byte[] buf = new byte[4096];
    try (InputStream err = process.getErrorStream()) {
      for (int n = err.read(buf); n >= 0; n = err.read(buf)) {
        synchronized (stderr) {
          stderr.append(new String(buf, 0, n, StandardCharsets.UTF_8));
          if (stderr.length() > MAX_STDERR_CHARS) {
            stderr.delete(0, stderr.length() - MAX_STDERR_CHARS);
          }
        }
      }
    } catch (IOException e) {
      // the stream closes when the server is stopped
    }
  }

  /** What the server last wrote to stderr, for an error message; empty when nothing. */
  String stderrTail() {
    synchronized (stderr) {
      String s = stderr.toString().strip();
      return s.isEmpty() ? "" : "; its stderr ends: " + s;
    }
  }

  @Override
  public CompletableFuture<JsonNode> initialize(McpInitializeRequest request) {
    return send(request, request.getId())
        .thenCompose(response -> send(new McpInitializationNotification(), null).thenApply(none -> response));
  }

  @Override
  public CompletableFuture<JsonNode> executeOperationWithResponse(McpClientMessage request) {
    return send(request, request.getId());
  }

  @Override
  public CompletableFuture<JsonNode> executeOperationWithResponse(McpCallContext context) {
    return send(context.message(), context.message().getId());
  }

  @Override
  public void executeOperationWithoutResponse(McpClientMessage request) {
    send(request, null);
  }

  @Override
  public void executeOperationWithoutResponse(McpCallContext context) {
    send(context.message(), null);
  }

  private CompletableFuture<JsonNode> send(Object message, Long id) {
    CompletableFuture<JsonNode> future = new CompletableFuture<>();
    if (id != null) {
      handler.startOperation(id, future);
    }
    try {
      byte[] line = (MAPPER.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
      synchronized (this) {
        stdin.write(line);
        stdin.flush();
      }
      if (id == null) {
        future.complete(null);
      }
    } catch (IOException e) {
      future.completeExceptionally(new IOException("cannot write to the MCP server " + command.get(0) + " ("
          + e.getMessage() + ")" + stderrTail(), e));
    }
    return future;
  }

  @Override
  public void checkHealth() {
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException("the MCP server " + command.get(0) + " is not running" + stderrTail());
    }
  }

  @Override
  public void onFailure(Runnable actionOnFailure) {
    // a stdio server is not reconnected: a server that died fails the calls made to it
  }

  private void stop(String why) {
    if (handler != null) {
      handler.cancelAllPendingOperations("the MCP server " + command.get(0) + " was stopped: " + why);
    }
    close();
  }

  @Override
  public void close() {
    closed = true;
    if (process == null) {
      return;
    }
    // Taken first: once the server exits, what it started is no longer found through it.
    List<ProcessHandle> started = process.descendants().toList();
    try {
      stdin.close(); // a well-behaved server exits at the end of its input
    } catch (IOException e) {
      // already gone
    }
    try {
      if (!process.waitFor(2, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    } finally {
      started.forEach(ProcessHandle::destroyForcibly);
    }
  }
}
