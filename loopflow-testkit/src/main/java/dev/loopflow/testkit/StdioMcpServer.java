package dev.loopflow.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A tiny MCP server on stdin/stdout (newline-delimited JSON-RPC 2.0), for tests that need a real MCP server process
 * and no network; its tools are described in {@link McpTestTools}. Start it with {@link #command()}.
 */
public final class StdioMcpServer {

    private StdioMcpServer() {}

    /**
     * The command line that starts this server in a new JVM (the running JVM's {@code java} binary, with this
     * module and Jackson on the class path): what a workflow's {@code mcp: [{command: [...]}]} names.
     */
    public static List<String> command() {
        String javaBinary = ProcessHandle.current().info().command().orElse("java");
        List<String> classPath = new ArrayList<>();
        for (Class<?> c : List.of(StdioMcpServer.class, com.fasterxml.jackson.databind.ObjectMapper.class,
                com.fasterxml.jackson.core.JsonFactory.class,
                com.fasterxml.jackson.annotation.JsonProperty.class)) {
            try {
                classPath.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
            } catch (URISyntaxException e) {
                throw new IllegalStateException("cannot locate the classes of " + c, e);
            }
        }
        return List.of(javaBinary, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp",
                String.join(File.pathSeparator, classPath), StdioMcpServer.class.getName());
    }

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode message = Json.parseOrMissing(line);
            ObjectNode response = McpTestTools.handle(message);
            if (response != null) {
                out.println(Json.write(response));
            }
        }
    }
}
