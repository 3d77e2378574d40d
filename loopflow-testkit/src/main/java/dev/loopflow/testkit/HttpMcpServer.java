package dev.loopflow.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The test MCP server of {@link McpTestTools} over MCP's streamable HTTP transport, on 127.0.0.1: {@code POST
 * /mcp} takes one JSON-RPC message and answers a request with a JSON body ({@code application/json}, which the
 * transport allows instead of an event stream) and a notification with 202; {@code GET} (the optional server
 * event stream) is answered 405. The first answer sets an {@code Mcp-Session-Id}, which later requests must carry.
 * Every JSON-RPC method received is recorded.
 */
public final class HttpMcpServer implements AutoCloseable {
    private static final String SESSION = "loopflow-test-session";

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final List<String> methods = new CopyOnWriteArrayList<>();

    private HttpMcpServer() {
        server = LoopbackHttpServer.create(64, "the MCP test server");
        server.setExecutor(executor);
        server.createContext("/mcp", this::handle);
        server.start();
    }

    public static HttpMcpServer start() {
        return new HttpMcpServer();
    }

    /** The endpoint, {@code http://127.0.0.1:PORT/mcp}. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/mcp";
    }

    /** The JSON-RPC methods received so far, in order ({@code initialize}, {@code tools/call}, ...). */
    public List<String> methods() {
        return List.copyOf(methods);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange exchange) {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("POST")) {
                send(exchange, 405, null);
                return;
            }
            JsonNode message = Json.parseOrMissing(
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            String method = message.path("method").asText("");
            methods.add(method);
            if (!method.equals("initialize") && !SESSION.equals(exchange.getRequestHeaders().getFirst(
                    "Mcp-Session-Id"))) {
                send(exchange, 400, "{\"error\":\"missing or unknown Mcp-Session-Id\"}");
                return;
            }
            ObjectNode response = McpTestTools.handle(message);
            exchange.getResponseHeaders().add("Mcp-Session-Id", SESSION);
            if (response == null) {
                send(exchange, 202, null);
            } else {
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                send(exchange, 200, Json.write(response));
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
