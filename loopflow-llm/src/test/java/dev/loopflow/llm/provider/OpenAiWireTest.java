package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.model.chat.response.ChatResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The streaming reader of OpenAI replies against LangChain4j's reading of the same bytes, over a generated corpus of
 * damaged replies: every prefix of a well-formed reply, byte flips, invalid UTF-8. It must give the same reply or
 * fail the same way, and must read the plain shape itself (the speed-up) rather than hand it on.
 */
class OpenAiWireTest {

    private static final String PLAIN = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1700000000,"
            + "\"model\":\"bench\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"fine \\u00e9\"},"
            + "\"logprobs\":null,\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3,"
            + "\"total_tokens\":15}}";
    private static final String TOOLS = "{\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
            + "\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\","
            + "\"arguments\":\"{\\\"a\\\":1}\"}}]},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":1,"
            + "\"completion_tokens\":2,\"total_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":0}}}";

    @Test
    void readsThePlainShapeWithoutLangChain4j() {
        // The fake server's and OpenAI's usual replies take the fast path; a fallback for them would undo the speed-up.
        for (String body : List.of(PLAIN, TOOLS)) {
            assertThat(OpenAiWire.readWellFormed(body.getBytes(StandardCharsets.UTF_8))).as(body).isNotNull();
        }
        ChatResponse plain = OpenAiWire.readWellFormed(PLAIN.getBytes(StandardCharsets.UTF_8));
        assertThat(plain.aiMessage().text()).isEqualTo("fine é");
        assertThat(plain.tokenUsage().inputTokenCount()).isEqualTo(12);
        assertThat(plain.tokenUsage().outputTokenCount()).isEqualTo(3);
        assertThat(plain.modelName()).isEqualTo("bench");
    }

    private static final byte[] NOISE = "{}[]\":,0-9aetnul \\".getBytes(StandardCharsets.US_ASCII);

    static Stream<byte[]> damaged() {
        List<byte[]> corpus = new ArrayList<>();
        for (String body : List.of(PLAIN, TOOLS)) {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            corpus.add(bytes);
            for (int n = 0; n < bytes.length; n += 3) {
                corpus.add(java.util.Arrays.copyOf(bytes, n)); // cut short
            }
            Random random = new Random(body.length());
            for (int i = 0; i < 150; i++) {
                byte[] flipped = bytes.clone();
                flipped[random.nextInt(flipped.length)] = NOISE[random.nextInt(NOISE.length)];
                corpus.add(flipped);
            }
        }
        corpus.add(new byte[] {(byte) 0xff, (byte) 0xfe, '{', '}'});
        corpus.add(PLAIN.replace("fine", "\u0000").getBytes(StandardCharsets.UTF_8));
        byte[] invalidUtf8 = PLAIN.getBytes(StandardCharsets.UTF_8);
        invalidUtf8[PLAIN.indexOf("fine")] = (byte) 0xC3; // a lead byte without its continuation
        corpus.add(invalidUtf8);
        return corpus.stream();
    }

    @ParameterizedTest
    @MethodSource("damaged")
    void readsEveryBodyAsLangChain4jReadsIt(byte[] body) {
        assertThat(outcome(() -> OpenAiWire.reply(body))).isEqualTo(outcome(() -> OpenAiWire.readAsLangChain(body)));
    }

    private static Object outcome(java.util.function.Supplier<ChatResponse> read) {
        try {
            ChatResponse r = read.get();
            return List.of(String.valueOf(r.aiMessage()), String.valueOf(r.modelName()),
                    String.valueOf(r.tokenUsage() == null ? null : r.tokenUsage().inputTokenCount()),
                    String.valueOf(r.tokenUsage() == null ? null : r.tokenUsage().outputTokenCount()),
                    String.valueOf(r.finishReason()));
        } catch (RuntimeException e) {
            return List.of(e.getClass().getName(), String.valueOf(e.getMessage()));
        }
    }

    @Test
    void callsWritingAndReadingAtOnceOnVirtualThreadsGetTheirOwnBytes() throws Exception {
        // The generator's and parser's buffers come from a pool shared by every call: a buffer handed to two calls
        // at once, or handed back dirty, would show as one call's text in another's request or reply.
        Random random = new Random(3);
        int n = 2_000;
        List<ChatCall> calls = new ArrayList<>();
        List<byte[]> replies = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String text = "call " + i + " " + "x\u00e9\"\\".repeat(random.nextInt(3_000));
            calls.add(ChatCall.builder("bench").system(i % 2 == 0 ? "Be terse." : null).user(text).build());
            replies.add(PLAIN.replace("fine \\u00e9", "reply " + i + " " + "y".repeat(random.nextInt(9_000)))
                    .getBytes(StandardCharsets.UTF_8));
        }
        List<byte[]> wantRequests = calls.stream().map(OpenAiWire::request).toList();
        List<String> wantTexts = replies.stream().map(b -> OpenAiWire.readWellFormed(b).aiMessage().text()).toList();
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < n; i++) {
                int k = i;
                done.add(pool.submit(() -> {
                    for (int round = 0; round < 3; round++) {
                        assertThat(OpenAiWire.request(calls.get(k))).isEqualTo(wantRequests.get(k));
                        assertThat(OpenAiWire.readWellFormed(replies.get(k)).aiMessage().text())
                                .isEqualTo(wantTexts.get(k));
                        Thread.yield();
                    }
                    return null;
                }));
            }
        }
        for (var f : done) {
            f.get();
        }
        assertThat(wantTexts.get(7)).startsWith("reply 7 ");
    }
}
