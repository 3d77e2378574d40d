package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.RecordedRequest;
import dev.loopflow.testkit.Reply;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The direct OpenAI path against LangChain4j's {@code OpenAiChatModel} as the reference: the same call sends the same
 * request, and the same answer (well-formed or hostile) gives the same reply or the same error.
 */
class OpenAiDirectPathTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "sk-secret-direct-0123456789";
    private static final FakeOpenAiServer SERVER = FakeOpenAiServer.start();
    private static final RecordingSleeper SLEEPER = new RecordingSleeper();
    private static final ProviderSettings SETTINGS =
            new ProviderSettings(Provider.OPENAI, SERVER.baseUrl(), KEY, Duration.ofSeconds(5), SLEEPER.policy(2));
    private static final ChatClient DIRECT = Providers.client(SETTINGS);
    private static final ChatClient REFERENCE = Providers.openAiThroughLangChain(SETTINGS);

    @AfterAll
    static void close() {
        SERVER.close();
    }

    @Test
    void onlyOpenAiBlockingCallsTakeTheDirectPath() {
        assertThat(((LangChainChatClient) DIRECT).direct()).isTrue();
        assertThat(((LangChainChatClient) REFERENCE).direct()).isFalse();
        assertThat(((LangChainChatClient) Providers.client(ProviderSettings.of(Provider.ANTHROPIC, "k"))).direct())
                .isFalse();
        assertThat(((LangChainChatClient) Providers.client(ProviderSettings.of(Provider.OLLAMA, null))).direct())
                .isFalse();
    }

    @Test
    void aBlockingCallThroughTheProviderSendsTheDirectPathsCompactBody() {
        // LangChain4j indents its request; the direct path writes OpenAiWire's bytes as they are.
        ChatCall call = ChatCall.builder("gpt-4o-mini").system("Be terse.").user("Hi").temperature(0.5).build();
        synchronized (SERVER) {
            SERVER.reset();
            DIRECT.chat(call);
            assertThat(SERVER.lastRequest().body())
                    .isEqualTo(new String(OpenAiWire.request(call), StandardCharsets.UTF_8))
                    .doesNotContain("\n");
        }
    }

    // ---- requests ---------------------------------------------------------------------------------------------------

    static Stream<Arguments> calls() {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("type", "object");
        params.put("properties", Map.of("path", Map.of("type", "string", "pattern", "^[a-z/]+$"),
                "n", Map.of("type", "integer", "minimum", 0.10)));
        params.put("required", List.of("path"));
        params.put("additionalProperties", false);
        params.put("$schema", "ignored at the top");
        ToolSpec read = new ToolSpec("read_file", "Reads a file", params);
        ToolSpec bare = new ToolSpec("noop", "", Map.of());
        ToolCall call = new ToolCall("call_1", "read_file", "{\"path\":\"/a\"}");
        ToolCall blank = new ToolCall("call_2", "noop", " ");
        String hostile = "quote \" backslash \\ newline \n tab \t nul \u0000 emoji 😀 bidi \u202e {{ x }} </script>";
        List<ChatCall> all = new ArrayList<>();
        all.add(ChatCall.of("gpt-4o-mini", "Hi"));
        all.add(ChatCall.of("bench", "Write draft 1"));
        all.add(ChatCall.builder("gpt-4o").system("Be terse.").user("Hi").assistant("Hello").user(hostile).build());
        all.add(ChatCall.builder("gpt-4o").system("   ").user("blank system is left out").build());
        all.add(ChatCall.builder("gpt-4o").user("").build());
        all.add(ChatCall.builder("gpt-4o").user("t").temperature(0.0).maxTokens(1).build());
        all.add(ChatCall.builder("gpt-4o").user("t").temperature(2.0).maxTokens(Integer.MAX_VALUE).build());
        all.add(ChatCall.builder("gpt-4o").user("t").temperature(0.7).build());
        all.add(ChatCall.builder("o1-mini").user("reasoning").maxTokens(100).build());
        all.add(ChatCall.builder("o3").user("reasoning").temperature(1.0).maxTokens(5).build());
        all.add(ChatCall.builder("gpt-5-nano").user("reasoning").maxTokens(7).build());
        all.add(ChatCall.builder("GPT-5").user("reasoning").maxTokens(7).build());
        all.add(ChatCall.builder("gpt-4o").user("json").jsonSchema(
                "{\"type\":\"object\",\"properties\":{\"answer\":{\"type\":\"integer\"}},\"required\":[\"answer\"]}")
                .build());
        all.add(ChatCall.builder("gpt-4o").user("json").jsonSchema(
                "{\"type\":\"object\",\"a\":1,\"a\":2,\"f\":0.10,\"big\":12345678901234567890,\"u\":\"\\u00e9\","
                        + "\"nested\":{\"anyOf\":[{\"type\":\"null\"},{\"enum\":[1,\"x\",true,null]}]}}")
                .build());
        all.add(ChatCall.builder("gpt-4o").user("tools").tools(List.of(read, bare)).build());
        all.add(ChatCall.builder("gpt-4o").user("read it")
                .message(ChatMessage.assistant("", List.of(call, blank)))
                .message(ChatMessage.toolResult(call, "contents " + hostile, false))
                .message(ChatMessage.toolResult(blank, "", true))
                .tools(List.of(read, bare)).build());
        all.add(ChatCall.builder("gpt-4o").user("x")
                .message(ChatMessage.assistant("thinking aloud", List.of(call)))
                .message(ChatMessage.toolResult(call, "ok", false))
                .message(ChatMessage.system("mid-conversation system"))
                .build());
        all.add(ChatCall.builder("local-model:7b").user("x".repeat(100_000)).build());
        return all.stream().map(Arguments::of);
    }

    @ParameterizedTest
    @MethodSource("calls")
    void sendsWhatLangChainSends(ChatCall call) throws IOException {
        RecordedRequest direct;
        RecordedRequest reference;
        synchronized (SERVER) {
            SERVER.reset();
            DIRECT.chat(call);
            direct = SERVER.lastRequest();
            REFERENCE.chat(call);
            reference = SERVER.lastRequest();
        }
        assertThat(direct.method()).isEqualTo(reference.method());
        assertThat(direct.path()).isEqualTo(reference.path());
        assertThat(direct.json()).isEqualTo(reference.json());
        for (String header : List.of("authorization", "user-agent", "content-type")) {
            assertThat(direct.header(header)).as(header).isEqualTo(reference.header(header));
        }
        assertThat(direct.body().getBytes(StandardCharsets.UTF_8)).isEqualTo(OpenAiWire.request(call));
        assertThat(JSON.readTree(OpenAiWire.request(call))).isEqualTo(reference.json());
    }

    @Test
    void aSystemMessageWithoutTextIsRefusedBeforeSendingOnBothPaths() {
        ChatCall call = ChatCall.builder("gpt-4o").user("x").message(ChatMessage.system(" ")).build();
        synchronized (SERVER) {
            SERVER.reset();
            assertThatThrownBy(() -> DIRECT.chat(call)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(catchMessage(() -> REFERENCE.chat(call)));
            assertThat(SERVER.requestCount()).isZero();
        }
    }

    // ---- replies ----------------------------------------------------------------------------------------------------

    private static String completion(String message, String usage, String extra) {
        return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1700000000,\"model\":\"gpt-4o-2024\","
                + "\"choices\":[{\"index\":0,\"message\":" + message + ",\"logprobs\":null,\"finish_reason\":\"stop\"}]"
                + (usage == null ? "" : ",\"usage\":" + usage) + extra + "}";
    }

    private static final String USAGE = "{\"prompt_tokens\":12,\"completion_tokens\":3,\"total_tokens\":15}";
    private static final String TOOL_CALLS = "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
            + "{\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"/a\\\"}\"}},"
            + "{\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"nope\",\"arguments\":\"not json\"}}]}";

    static Stream<Arguments> replies() {
        Map<String, Reply> r = new LinkedHashMap<>();
        r.put("plain", ok(completion("{\"role\":\"assistant\",\"content\":\"fine\"}", USAGE, "")));
        r.put("unicode and escapes", ok(completion(
                "{\"role\":\"assistant\",\"content\":\"\\u00e9 😀 \\\"q\\\" \\n \\u0000\"}", USAGE, "")));
        r.put("content null", ok(completion("{\"role\":\"assistant\",\"content\":null}", USAGE, "")));
        r.put("content empty", ok(completion("{\"role\":\"assistant\",\"content\":\"\"}", USAGE, "")));
        r.put("content missing", ok(completion("{\"role\":\"assistant\"}", USAGE, "")));
        r.put("usage missing", ok(completion("{\"role\":\"assistant\",\"content\":\"a\"}", null, "")));
        r.put("usage null", ok(completion("{\"role\":\"assistant\",\"content\":\"a\"}", "null", "")));
        r.put("usage partial", ok(completion("{\"role\":\"assistant\",\"content\":\"a\"}",
                "{\"completion_tokens\":4}", "")));
        r.put("usage details", ok(completion("{\"role\":\"assistant\",\"content\":\"a\"}",
                "{\"prompt_tokens\":5,\"completion_tokens\":4,\"total_tokens\":9,\"prompt_tokens_details\":"
                        + "{\"cached_tokens\":0,\"audio_tokens\":0},\"completion_tokens_details\":{\"reasoning_tokens\":2,"
                        + "\"accepted_prediction_tokens\":0}}", "")));
        r.put("usage negative", ok(completion("{\"role\":\"assistant\",\"content\":\"a\"}",
                "{\"prompt_tokens\":-5,\"completion_tokens\":4}", "")));
        r.put("usage as strings", ok(completion("{\"role\":\"assistant\",\"content\":\"a\"}",
                "{\"prompt_tokens\":\"5\",\"completion_tokens\":\"4\"}", "")));
        r.put("usage floats", ok(completion("{\"role\":\"assistant\",\"content\":\"a\"}",
                "{\"prompt_tokens\":5.7,\"completion_tokens\":4}", "")));
        r.put("usage too big", ok(completion("{\"role\":\"assistant\",\"content\":\"a\"}",
                "{\"prompt_tokens\":99999999999,\"completion_tokens\":4}", "")));
        r.put("usage boolean", ok(completion("{\"role\":\"assistant\",\"content\":\"a\"}",
                "{\"prompt_tokens\":true}", "")));
        r.put("usage array", ok(completion("{\"role\":\"assistant\",\"content\":\"a\"}", "[1,2]", "")));
        r.put("model missing", ok("{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"a\"}}]}"));
        r.put("unknown fields", ok(completion("{\"role\":\"assistant\",\"content\":\"a\",\"annotations\":[],"
                + "\"x\":{\"y\":[1,{\"z\":null}]}}", USAGE, ",\"service_tier\":\"default\",\"system_fingerprint\":"
                + "\"fp\",\"extra\":{\"deep\":[[[]]]}")));
        r.put("tool calls", ok(completion(TOOL_CALLS, USAGE, "")));
        r.put("tool call without id", ok(completion("{\"role\":\"assistant\",\"tool_calls\":[{\"type\":\"function\","
                + "\"function\":{\"name\":\"read_file\",\"arguments\":\"{}\"}}]}", USAGE, "")));
        r.put("tool call without type", ok(completion("{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\","
                + "\"function\":{\"name\":\"read_file\",\"arguments\":\"{}\"}}]}", USAGE, "")));
        r.put("tool call of other type", ok(completion("{\"role\":\"assistant\",\"content\":\"t\",\"tool_calls\":"
                + "[{\"id\":\"c\",\"type\":\"retrieval\",\"function\":{\"name\":\"x\"}}]}", USAGE, "")));
        r.put("tool call without function", ok(completion("{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\","
                + "\"type\":\"function\"}]}", USAGE, "")));
        r.put("tool call arguments object", ok(completion("{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\","
                + "\"type\":\"function\",\"function\":{\"name\":\"x\",\"arguments\":{\"a\":1}}}]}", USAGE, "")));
        r.put("legacy function_call", ok(completion("{\"role\":\"assistant\",\"function_call\":{\"name\":\"f\","
                + "\"arguments\":\"{}\"}}", USAGE, "")));
        r.put("refusal", ok(completion("{\"role\":\"assistant\",\"content\":null,\"refusal\":\"I can't\"}", USAGE,
                "")));
        r.put("blank refusal", ok(completion("{\"role\":\"assistant\",\"content\":\"a\",\"refusal\":\" \"}", USAGE,
                "")));
        r.put("content number", ok(completion("{\"role\":\"assistant\",\"content\":42}", USAGE, "")));
        r.put("content object", ok(completion("{\"role\":\"assistant\",\"content\":{\"a\":1}}", USAGE, "")));
        r.put("content array", ok(completion("{\"role\":\"assistant\",\"content\":[\"a\"]}", USAGE, "")));
        r.put("role other", ok(completion("{\"role\":\"user\",\"content\":\"a\"}", USAGE, "")));
        r.put("message missing", ok("{\"choices\":[{\"index\":0,\"finish_reason\":\"stop\"}]}"));
        r.put("message null", ok("{\"choices\":[{\"message\":null}]}"));
        r.put("choices empty", ok("{\"choices\":[],\"usage\":" + USAGE + "}"));
        r.put("choices missing", ok("{\"model\":\"m\"}"));
        r.put("choices null", ok("{\"choices\":null}"));
        r.put("choices object", ok("{\"choices\":{\"message\":{\"content\":\"a\"}}}"));
        r.put("choices of scalars", ok("{\"choices\":[1,2]}"));
        r.put("two choices", ok("{\"choices\":[{\"message\":{\"content\":\"a\"}},{\"message\":{\"content\":\"b\"}}]}"));
        r.put("duplicate content", ok(completion("{\"role\":\"assistant\",\"content\":\"a\",\"content\":\"b\"}",
                USAGE, "")));
        r.put("duplicate choices", ok("{\"choices\":[],\"choices\":[{\"message\":{\"content\":\"b\"}}]}"));
        r.put("finish length", ok(completion("{\"content\":\"a\"}", USAGE, "").replace("\"stop\"", "\"length\"")));
        r.put("finish tool_calls", ok(completion(TOOL_CALLS, USAGE, "").replace("\"stop\"", "\"tool_calls\"")));
        r.put("finish content_filter", ok(completion("{\"content\":\"a\"}", USAGE, "")
                .replace("\"stop\"", "\"content_filter\"")));
        r.put("finish unknown", ok(completion("{\"content\":\"a\"}", USAGE, "").replace("\"stop\"", "\"eos\"")));
        r.put("finish number", ok(completion("{\"content\":\"a\"}", USAGE, "").replace("\"stop\"", "7")));
        r.put("created text", ok(completion("{\"content\":\"a\"}", USAGE, "").replace("1700000000", "\"soon\"")));
        r.put("logprobs present", ok(completion("{\"content\":\"a\"}", USAGE, "")
                .replace("\"logprobs\":null", "\"logprobs\":{\"content\":[{\"token\":\"a\",\"logprob\":-0.1}]}")));
        r.put("trailing garbage", ok(completion("{\"content\":\"a\"}", USAGE, "") + " ]]] not json"));
        r.put("byte order mark", ok("\uFEFF" + completion("{\"content\":\"a\"}", USAGE, "")));
        r.put("malformed", ok("{\"choices\":[{\"message\":{\"content\":\"a\"}"));
        r.put("truncated string", ok("{\"choices\":[{\"message\":{\"content\":\"a"));
        r.put("empty body", ok(""));
        r.put("json null", ok("null"));
        r.put("json array", ok("[]"));
        r.put("json string", ok("\"fine\""));
        r.put("html page with 200", ok("<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>"));
        r.put("html 502", new Reply.Http(502, "<html><head><title>502 Bad Gateway</title></head><body>"
                + "<center><h1>502 Bad Gateway</h1></center></body></html>", Map.of("Content-Type", "text/html")));
        r.put("json 401", new Reply.Http(401, "{\"error\":{\"message\":\"Incorrect API key provided\","
                + "\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}", Map.of()));
        r.put("json 404 unknown model", new Reply.Http(404, "{\"error\":{\"message\":\"The model `x` does not exist\"}}",
                Map.of()));
        r.put("429 retry-after", new Reply.Http(429, "{\"error\":{\"message\":\"Rate limit\"}}",
                Map.of("Retry-After", "1.5")));
        r.put("429 retry-after-ms", new Reply.Http(429, "slow down", Map.of("retry-after-ms", "250")));
        r.put("500 empty", new Reply.Http(500, "", Map.of()));
        r.put("503 whitespace", new Reply.Http(503, "   \n  ", Map.of()));
        r.put("408", new Reply.Http(408, "timeout", Map.of()));
        r.put("204 no body", new Reply.Http(204, "", Map.of()));
        r.put("huge body", ok("{\"choices\":[{\"message\":{\"content\":\"" + "x".repeat(ReplyBody.MAX_BYTES)
                + "\"}}]}"));
        r.put("huge error body", new Reply.Http(500, "e".repeat(ReplyBody.MAX_BYTES + 1), Map.of()));
        return r.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
    }

    private static Reply ok(String body) {
        return new Reply.Http(200, body, Map.of("Content-Type", "application/json"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("replies")
    void readsEveryAnswerAsLangChainDoes(String name, Reply reply) {
        ToolSpec tool = new ToolSpec("read_file", "Reads", Map.of("type", "object"));
        for (ChatCall call : List.of(ChatCall.of("gpt-4o", "Hi"),
                ChatCall.builder("gpt-4o").user("Hi").tools(List.of(tool)).build())) {
            Object direct;
            Object reference;
            synchronized (SERVER) {
                SERVER.reset();
                SERVER.defaultReply(reply);
                direct = outcome(() -> DIRECT.chat(call));
                reference = outcome(() -> REFERENCE.chat(call));
                SERVER.reset();
            }
            assertThat(direct).as(name).isEqualTo(reference);
            assertThat(String.valueOf(direct)).doesNotContain(KEY);
        }
    }

    @Test
    void aReplyLargerThanTheCapIsAnUnreadableReplyNotARetry() {
        synchronized (SERVER) {
            SERVER.reset();
            SERVER.defaultReply(ok("{\"choices\":[{\"message\":{\"content\":\"" + "x".repeat(ReplyBody.MAX_BYTES)
                    + "\"}}]}"));
            assertThatThrownBy(() -> DIRECT.chat(ChatCall.of("gpt-4o", "Hi")))
                    .isInstanceOfSatisfying(ProviderException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ProviderException.Kind.INVALID_RESPONSE);
                        assertThat(e.attempts()).isEqualTo(1);
                    });
            SERVER.reset();
        }
    }

    /** A reply or an error, comparable: the error's type, kind, status, attempts and message. */
    private static Object outcome(java.util.function.Supplier<ChatReply> call) {
        try {
            return call.get();
        } catch (ProviderException e) {
            return List.of("ProviderException", e.kind(), e.code(), e.httpStatus(), e.attempts(), e.getMessage());
        } catch (RuntimeException e) {
            return List.of(e.getClass().getName(), String.valueOf(e.getMessage()));
        }
    }

    private static String catchMessage(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            return e.getMessage();
        }
        throw new AssertionError("expected a failure");
    }

    // ---- transport ----------------------------------------------------------------------------------------------------

    @Test
    void aServerThatTricklesItsBodyTimesOutWithinTheCallsTimeout_bugSlowLorisBodyHeldTheCall() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread server = Thread.ofVirtual().start(() -> trickle(socket));
            ChatClient client = Providers.client(new ProviderSettings(Provider.OPENAI,
                    "http://127.0.0.1:" + socket.getLocalPort() + "/v1", KEY, Duration.ofMillis(400),
                    RetryPolicy.none()));
            assertThatThrownBy(() -> client.chat(ChatCall.of("gpt-4o", "Hi")))
                    .isInstanceOfSatisfying(ProviderException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ProviderException.Kind.TIMEOUT);
                        assertThat(e.getMessage()).doesNotContain(KEY);
                    });
            server.interrupt();
        }
    }

    /** Answers with headers promising a body, then one byte every 100 ms. */
    private static void trickle(ServerSocket socket) {
        try (Socket s = socket.accept()) {
            InputStream in = s.getInputStream();
            byte[] buffer = new byte[8192];
            in.read(buffer); // the request; its content does not matter
            OutputStream out = s.getOutputStream();
            out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            for (int i = 0; i < 100 && !Thread.currentThread().isInterrupted(); i++) {
                Thread.sleep(100);
                out.write(' ');
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // the client hung up, as it should
        }
    }

    @Test
    void anUnreachableServerFailsAlikeOnBothPaths() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        ProviderSettings closed = new ProviderSettings(Provider.OPENAI, "http://127.0.0.1:" + port + "/v1", KEY,
                Duration.ofSeconds(2), RetryPolicy.none());
        Object direct = outcome(() -> Providers.client(closed).chat(ChatCall.of("gpt-4o", "Hi")));
        Object reference = outcome(() -> Providers.openAiThroughLangChain(closed).chat(ChatCall.of("gpt-4o", "Hi")));
        assertThat(direct).isEqualTo(reference);
        assertThat(direct.toString()).contains("NETWORK").doesNotContain(KEY);
    }

    @Test
    void theDirectPathNeverShowsTheKey() {
        assertThat(DIRECT.toString()).doesNotContain(KEY);
        assertThat(new OpenAiDirect(java.net.http.HttpClient.newHttpClient(), SERVER.baseUrl(), KEY).toString())
                .doesNotContain(KEY);
    }
}
