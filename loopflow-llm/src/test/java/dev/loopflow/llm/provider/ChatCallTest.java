package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChatCallTest {

    @Test
    void ofBuildsASingleUserMessage() {
        ChatCall call = ChatCall.of("gpt-4o", "Hi");

        assertThat(call.messages()).containsExactly(ChatMessage.user("Hi"));
        assertThat(call.system()).isNull();
        assertThat(call.timeout()).isNull();
    }

    @Test
    void messagesAreCopied() {
        List<ChatMessage> messages = new ArrayList<>(List.of(ChatMessage.user("Hi")));
        ChatCall call = new ChatCall("m", null, messages, null, null, null, null);

        messages.add(ChatMessage.user("later"));

        assertThat(call.messages()).hasSize(1);
    }

    @Test
    void invalidFieldsAreNamedWithTheirValue() {
        assertThatThrownBy(() -> ChatCall.of(" ", "Hi")).hasMessage("model must not be blank but was ' '");
        assertThatThrownBy(() -> ChatCall.builder("m").build())
                .hasMessage("messages must contain at least one message but was []");
        assertThatThrownBy(() -> ChatCall.builder("m").user("Hi").temperature(2.5).build())
                .hasMessage("temperature must be within [0, 2] but was 2.5");
        assertThatThrownBy(() -> ChatCall.builder("m").user("Hi").maxTokens(0).build())
                .hasMessage("maxTokens must be >= 1 but was 0");
        assertThatThrownBy(() -> ChatCall.builder("m").user("Hi").timeout(Duration.ZERO).build())
                .hasMessage("timeout must be positive but was PT0S");
    }

    @Test
    void jsonSchemaMustBeAJsonObject() {
        assertThatThrownBy(() -> ChatCall.builder("m").user("Hi").jsonSchema("{not json").build())
                .hasMessageStartingWith("jsonSchema must be JSON but could not be parsed");
        assertThatThrownBy(() -> ChatCall.builder("m").user("Hi").jsonSchema("[1]").build())
                .hasMessage("jsonSchema must be a JSON object but was '[1]'");
    }

    @Test
    void replyRejectsImpossibleValues() {
        assertThatThrownBy(() -> new ChatReply("x", -1, 0, "m", "openai", 1))
                .hasMessage("inputTokens must be >= 0 but was -1");
        assertThatThrownBy(() -> new ChatReply("x", 0, 0, "m", "openai", 0))
                .hasMessage("attempts must be >= 1 but was 0");
    }
}
