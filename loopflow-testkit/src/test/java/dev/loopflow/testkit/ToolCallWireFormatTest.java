package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tool-call replies in each provider's own shape, and tool results read back from each provider's requests. */
class ToolCallWireFormatTest {
    private static final Reply.ToolCalls CALLS = new Reply.ToolCalls(List.of(
            new Reply.Call("c1", "lookup", "{\"q\":\"x\"}"),
            new Reply.Call(null, "broken", "{not json")), "thinking", 7, 3);

    @Test
    void openAiSendsToolCallsWithArgumentsAsAStringAndFinishReasonToolCalls() {
        try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
            server.enqueue(CALLS);
            JsonNode json = Http.json(Http.post(server.baseUrl() + "/chat/completions", "{\"model\":\"m\"}"));

            JsonNode message = json.at("/choices/0/message");
            assertThat(message.path("content").asText()).isEqualTo("thinking");
            assertThat(message.at("/tool_calls/0/id").asText()).isEqualTo("c1");
            assertThat(message.at("/tool_calls/0/type").asText()).isEqualTo("function");
            assertThat(message.at("/tool_calls/0/function/arguments").asText()).isEqualTo("{\"q\":\"x\"}");
            assertThat(message.at("/tool_calls/1/id").asText()).isNotBlank().isNotEqualTo("c1");
            assertThat(message.at("/tool_calls/1/function/arguments").asText()).isEqualTo("{not json");
            assertThat(json.at("/choices/0/finish_reason").asText()).isEqualTo("tool_calls");
            assertThat(json.at("/usage/prompt_tokens").asLong()).isEqualTo(7);
        }
    }

    @Test
    void anthropicSendsToolUseBlocksWithObjectInputAndStopReasonToolUse() {
        try (FakeAnthropicServer server = FakeAnthropicServer.start()) {
            server.enqueue(CALLS);
            JsonNode json = Http.json(Http.post(server.rootUri() + "/v1/messages",
                    "{\"model\":\"m\",\"tools\":[{\"name\":\"lookup\"}],\"messages\":[]}"));

            assertThat(json.at("/content/0/type").asText()).isEqualTo("text");
            assertThat(json.at("/content/1/type").asText()).isEqualTo("tool_use");
            assertThat(json.at("/content/1/id").asText()).isEqualTo("c1");
            assertThat(json.at("/content/1/input/q").asText()).isEqualTo("x");
            assertThat(json.at("/content/2/input/value").asText()).isEqualTo("{not json");
            assertThat(json.path("stop_reason").asText()).isEqualTo("tool_use");
        }
    }

    @Test
    void anthropicAnswersTextWhenToolsAreOnlyOffered() {
        try (FakeAnthropicServer server = FakeAnthropicServer.start()) {
            server.enqueue(Reply.text("plain answer"));
            JsonNode json = Http.json(Http.post(server.rootUri() + "/v1/messages",
                    "{\"model\":\"m\",\"tools\":[{\"name\":\"lookup\"}],\"messages\":[]}"));

            assertThat(json.at("/content/0/text").asText()).isEqualTo("plain answer");
            assertThat(json.path("stop_reason").asText()).isEqualTo("end_turn");
        }
    }

    @Test
    void ollamaSendsToolCallsWithArgumentsAsAnObjectAndIdsOnlyWhenScripted() {
        try (FakeOllamaServer server = FakeOllamaServer.start()) {
            server.enqueue(CALLS);
            JsonNode json = Http.json(Http.post(server.baseUrl() + "/api/chat", "{\"model\":\"m\"}"));

            assertThat(json.at("/message/tool_calls/0/id").asText()).isEqualTo("c1");
            assertThat(json.at("/message/tool_calls/0/function/arguments/q").asText()).isEqualTo("x");
            assertThat(json.at("/message/tool_calls/1").has("id")).isFalse();
            assertThat(json.path("done").asBoolean()).isTrue();
        }
    }

    @Test
    void toolNamesAndResultsAreReadFromEachFormat() {
        try (FakeOpenAiServer openAi = FakeOpenAiServer.start();
                FakeAnthropicServer anthropic = FakeAnthropicServer.start()) {
            Http.post(openAi.baseUrl() + "/chat/completions", """
                    {"model":"m","tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}],
                     "messages":[{"role":"user","content":"hi"},
                                 {"role":"assistant","tool_calls":[{"id":"c1","type":"function",
                                   "function":{"name":"lookup","arguments":"{}"}}]},
                                 {"role":"tool","tool_call_id":"c1","content":"found"}]}""");
            Http.post(anthropic.rootUri() + "/v1/messages", """
                    {"model":"m","tools":[{"name":"lookup","input_schema":{"type":"object"}}],
                     "messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1",
                       "content":[{"type":"text","text":"oops"}],"is_error":true}]}]}""");

            assertThat(openAi.lastRequest().toolNames()).containsExactly("lookup");
            assertThat(openAi.lastRequest().toolResults())
                    .containsExactly(new RecordedRequest.ToolResult("c1", "found", false));
            assertThat(anthropic.lastRequest().toolNames()).containsExactly("lookup");
            assertThat(anthropic.lastRequest().toolParameters("lookup").path("type").asText()).isEqualTo("object");
            assertThat(anthropic.lastRequest().toolResults())
                    .containsExactly(new RecordedRequest.ToolResult("t1", "oops", true));
        }
    }
}
