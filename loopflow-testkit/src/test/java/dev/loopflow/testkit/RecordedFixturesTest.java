package dev.loopflow.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The recorded wire fixtures stay what the suite relies on: every one loads as a reply, sits beside the request that
 * produced it, is small, and says whether it was recorded or reconstructed; and the few properties the provider
 * tests are about (cached input tokens, a stream without its end marker) are still in the bytes after a re-record.
 */
class RecordedFixturesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MARK = "x-loopflow-fixture";

    static Stream<String> fixtures() throws IOException, URISyntaxException {
        Path root = Path.of(RecordedFixturesTest.class.getResource("/dev/loopflow/testkit/wire").toURI());
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(p -> p.toString().endsWith(".http"))
                    .forEach(p -> names.add(root.relativize(p).toString().replace('\\', '/').replaceAll("\\.http$", "")));
        }
        assertThat(names).as("fixtures under wire/").hasSizeGreaterThan(20);
        return names.stream().sorted();
    }

    private static Path file(String name) throws URISyntaxException {
        return Path.of(RecordedFixturesTest.class.getResource("/dev/loopflow/testkit/wire/" + name).toURI());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void everyFixtureLoadsIsSmallAndHasTheRequestThatProducedItBesideIt(String name) throws Exception {
        Reply.Recorded reply = Reply.recorded(name);
        String head = Files.readString(file(name + ".http"), StandardCharsets.ISO_8859_1).lines().findFirst().orElse("");

        assertThat(head).startsWith("HTTP/1.1 " + reply.status() + " ");
        assertThat(Files.size(file(name + ".http"))).as("size of %s.http", name).isLessThanOrEqualTo(20_000);
        JsonNode request = JSON.readTree(file(name + ".request.json").toFile());
        assertThat(request.isObject()).as("%s.request.json is a JSON object", name).isTrue();
        if (reply.streamed()) {
            assertThat(reply.eventCount()).as("events of %s", name).isGreaterThan(1);
            assertThat(request.path("stream").asBoolean()).as("%s was asked for as a stream", name).isTrue();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void onlyTheReconstructedTransformersServeRepliesSaySoAndRecordedOnesCarryTheirServersName(String name) {
        Reply.Recorded reply = Reply.recorded(name);
        if (name.startsWith("transformers-serve/")) {
            assertThat(reply.headers().get(MARK)).as("%s marks itself reconstructed", name)
                    .singleElement().asString().startsWith("reconstructed from transformers");
            assertThat(reply.headers().get("server")).containsExactly("uvicorn");
        } else {
            assertThat(reply.headers()).as("%s is recorded, not written", name).doesNotContainKey(MARK);
            String server = name.substring(0, name.indexOf('/'));
            assertThat(reply.headers().get("server")).as("server of %s", name)
                    .singleElement().asString().startsWith(server.equals("nginx") ? "nginx/" : "llama.cpp");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"llama-server/anthropic-cached", "llama-server/anthropic-cached-stream"})
    void theCachedAnthropicRepliesCountMostOfTheirInputAsCacheReads(String name) throws Exception {
        Reply.Recorded reply = Reply.recorded(name);
        JsonNode usage = reply.streamed()
                ? JSON.readTree(reply.text().lines().filter(l -> l.contains("\"message_start\"") && l.startsWith("data:"))
                        .findFirst().orElseThrow().substring("data:".length())).at("/message/usage")
                : JSON.readTree(reply.body()).path("usage");

        assertThat(usage.path("cache_read_input_tokens").asLong()).isGreaterThan(usage.path("input_tokens").asLong())
                .isPositive();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"transformers-serve/openai-stream-no-done"})
    void theTransformersServeStreamEndsWithItsFinishReasonAndUsageAndNoDoneMarker(String name) throws Exception {
        Reply.Recorded reply = Reply.recorded(name);
        List<String> data = reply.text().lines().filter(l -> l.startsWith("data: ")).toList();
        JsonNode last = JSON.readTree(data.get(data.size() - 1).substring("data: ".length()));

        assertThat(reply.text()).doesNotContain("[DONE]");
        assertThat(last.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
        assertThat(last.at("/usage/prompt_tokens").asLong()).isPositive();
        assertThat(last.at("/usage/completion_tokens").asLong()).isPositive();
    }
}
