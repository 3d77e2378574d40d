package dev.loopflow.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The MCP server both test transports serve ({@link StdioMcpServer}, {@link HttpMcpServer}): JSON-RPC 2.0 with
 * {@code initialize}, {@code ping}, {@code tools/list} and {@code tools/call}. Its tools:
 * <ul>
 *   <li>{@code add} {@code {a: number, b: number}} → the sum as text</li>
 *   <li>{@code echo} {@code {text: string}} → the text</li>
 *   <li>{@code env} {@code {name: string}} → the value of that environment variable of the server process, or
 *       {@code (unset)}</li>
 *   <li>{@code fail} {@code {}} → a result marked {@code isError} with the text {@code tool failed on purpose}</li>
 *   <li>{@code sleep} {@code {millis: integer}} → sleeps, then {@code slept}</li>
 * </ul>
 * Arguments of the wrong shape get JSON-RPC error -32602. When the environment variable {@code MCP_TEST_LOG}
 * names a file, every {@code tools/call} appends one line to it ({@code name arguments-json}), so a test can count
 * the calls a server process received.
 */
final class McpTestTools {
    static final String PROTOCOL = "2025-06-18";

    private McpTestTools() {}

    /** The response to {@code message}, or null for a notification (no id), which gets none. */
    static ObjectNode handle(JsonNode message) {
        JsonNode id = message.get("id");
        if (id == null || id.isNull()) {
            return null;
        }
        String method = message.path("method").asText("");
        ObjectNode response = Json.MAPPER.createObjectNode();
        response.put("jsonrpc", "2.0");
        response.set("id", id);
        try {
            response.set("result", switch (method) {
                case "initialize" -> initialize();
                case "ping" -> Json.MAPPER.createObjectNode();
                case "tools/list" -> list();
                case "tools/call" -> call(message.path("params"));
                default -> throw new RpcError(-32601, "method not found: " + method);
            });
        } catch (RpcError e) {
            ObjectNode error = response.putObject("error");
            error.put("code", e.code);
            error.put("message", e.getMessage());
        }
        return response;
    }

    private static ObjectNode initialize() {
        ObjectNode result = Json.MAPPER.createObjectNode();
        result.put("protocolVersion", PROTOCOL);
        result.putObject("capabilities").putObject("tools").put("listChanged", false);
        result.putObject("serverInfo").put("name", "loopflow-test-mcp").put("version", "1.0");
        return result;
    }

    private static ObjectNode list() {
        ObjectNode result = Json.MAPPER.createObjectNode();
        ArrayNode tools = result.putArray("tools");
        tool(tools, "add", "Adds two numbers", "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},"
                + "\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}");
        tool(tools, "echo", "Returns the text it is given", "{\"type\":\"object\",\"properties\":{\"text\":"
                + "{\"type\":\"string\"}},\"required\":[\"text\"]}");
        tool(tools, "env", "Reads an environment variable of the server", "{\"type\":\"object\",\"properties\":"
                + "{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}");
        tool(tools, "fail", "Always fails", "{\"type\":\"object\",\"properties\":{}}");
        tool(tools, "sleep", "Sleeps", "{\"type\":\"object\",\"properties\":{\"millis\":{\"type\":\"integer\"}},"
                + "\"required\":[\"millis\"]}");
        return result;
    }

    private static void tool(ArrayNode tools, String name, String description, String schema) {
        ObjectNode t = tools.addObject();
        t.put("name", name);
        t.put("description", description);
        t.set("inputSchema", Json.parseOrMissing(schema));
    }

    private static ObjectNode call(JsonNode params) throws RpcError {
        String name = params.path("name").asText("");
        JsonNode args = params.path("arguments");
        log(name + " " + args);
        return switch (name) {
            case "add" -> {
                if (!args.path("a").isNumber() || !args.path("b").isNumber()) {
                    throw new RpcError(-32602, "add needs numbers a and b");
                }
                double sum = args.path("a").asDouble() + args.path("b").asDouble();
                yield text(sum == Math.rint(sum) && Math.abs(sum) < 1e15 ? Long.toString((long) sum)
                        : Double.toString(sum), false);
            }
            case "echo" -> {
                if (!args.path("text").isTextual()) {
                    throw new RpcError(-32602, "echo needs a string text");
                }
                yield text(args.path("text").asText(), false);
            }
            case "env" -> {
                String value = System.getenv(args.path("name").asText(""));
                yield text(value == null ? "(unset)" : value, false);
            }
            case "fail" -> text("tool failed on purpose", true);
            case "sleep" -> {
                try {
                    Thread.sleep(args.path("millis").asLong(0));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                yield text("slept", false);
            }
            default -> throw new RpcError(-32602, "unknown tool: " + name);
        };
    }

    private static ObjectNode text(String text, boolean error) {
        ObjectNode result = Json.MAPPER.createObjectNode();
        result.putArray("content").addObject().put("type", "text").put("text", text);
        result.put("isError", error);
        return result;
    }

    private static void log(String line) {
        String file = System.getenv("MCP_TEST_LOG");
        if (file == null || file.isBlank()) {
            return;
        }
        try {
            Files.writeString(Path.of(file), line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A JSON-RPC error answer. */
    private static final class RpcError extends Exception {
        final int code;

        RpcError(int code, String message) {
            super(message, null, false, false);
            this.code = code;
        }
    }
}
