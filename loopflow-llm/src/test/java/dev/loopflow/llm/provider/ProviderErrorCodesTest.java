package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A provider failure reaches the caller as the root exception: code {@code timeout} when no answer came in time,
 * {@code cancelled} when the caller was interrupted, {@code node_failed} otherwise; the kind keeps the detail.
 */
class ProviderErrorCodesTest {
    private final FakeOpenAiServer server = FakeOpenAiServer.start();
    private final RecordingSleeper sleeper = new RecordingSleeper();

    @AfterEach
    void close() {
        server.close();
    }

    private ChatClient client(Duration timeout) {
        return Providers.client(
                new ProviderSettings(Provider.OPENAI, server.baseUrl(), "sk-test", timeout, sleeper.policy(2)));
    }

    static Stream<Arguments> failingReplies() {
        return Stream.of(
                Arguments.of(Reply.error(401, "Incorrect API key provided"), ProviderException.Kind.AUTH),
                Arguments.of(Reply.error(403, "forbidden"), ProviderException.Kind.AUTH),
                Arguments.of(Reply.error(400, "bad request"), ProviderException.Kind.CLIENT_ERROR),
                Arguments.of(Reply.error(404, "The model `gpt-9` does not exist"), ProviderException.Kind.CLIENT_ERROR),
                Arguments.of(Reply.error(422, "unprocessable"), ProviderException.Kind.CLIENT_ERROR),
                Arguments.of(Reply.rateLimited(Duration.ofMillis(1)), ProviderException.Kind.RATE_LIMITED),
                Arguments.of(Reply.serverError(), ProviderException.Kind.SERVER_ERROR),
                Arguments.of(Reply.error(503, "unavailable"), ProviderException.Kind.SERVER_ERROR),
                Arguments.of(Reply.error(529, "overloaded"), ProviderException.Kind.SERVER_ERROR),
                Arguments.of(Reply.error(408, "request timeout"), ProviderException.Kind.TIMEOUT),
                Arguments.of(Reply.raw(200, "this is not json"), ProviderException.Kind.INVALID_RESPONSE),
                Arguments.of(Reply.raw(200, "{\"choices\": 7}"), ProviderException.Kind.INVALID_RESPONSE),
                Arguments.of(Reply.text("too late").after(Duration.ofSeconds(10)), ProviderException.Kind.TIMEOUT));
    }

    @ParameterizedTest
    @MethodSource("failingReplies")
    void everyFailureArrivesAsALoopflowExceptionWithTheCodeOfItsKind(Reply reply, ProviderException.Kind kind) {
        server.defaultReply(reply);

        // A short timeout only for the reply that is meant to be too late: any other reply gets all the time a loaded
        // machine may need, so that it is never mistaken for a timeout.
        Duration timeout = reply instanceof Reply.Delayed ? Duration.ofMillis(300) : Duration.ofSeconds(60);
        LoopflowException e = catchThrowableOfType(LoopflowException.class,
                () -> client(timeout).chat(ChatCall.of("gpt-4o-mini", "Hi")));

        assertThat(e).isInstanceOfSatisfying(ProviderException.class, p -> assertThat(p.kind()).isEqualTo(kind));
        assertThat(e.code())
                .isEqualTo(kind == ProviderException.Kind.TIMEOUT ? ErrorCode.TIMEOUT : ErrorCode.NODE_FAILED);
    }

    @Test
    void anUnreachableProviderIsNodeFailed() {
        String baseUrl = server.baseUrl();
        server.close();
        ChatClient client = Providers.client(
                new ProviderSettings(Provider.OPENAI, baseUrl, "sk-test", Duration.ofSeconds(2), sleeper.policy(1)));

        LoopflowException e = catchThrowableOfType(LoopflowException.class,
                () -> client.chat(ChatCall.of("gpt-4o-mini", "Hi")));

        assertThat(e.code()).isEqualTo(ErrorCode.NODE_FAILED);
        assertThat(((ProviderException) e).kind()).isEqualTo(ProviderException.Kind.NETWORK);
    }

    @Test
    void anInterruptedCallIsCancelled() {
        server.defaultReply(Reply.text("too late").after(Duration.ofSeconds(10)));
        Thread.currentThread().interrupt();
        try {
            LoopflowException e = catchThrowableOfType(LoopflowException.class,
                    () -> client(Duration.ofSeconds(5)).chat(ChatCall.of("gpt-4o-mini", "Hi")));

            assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED);
            assertThat(((ProviderException) e).kind()).isEqualTo(ProviderException.Kind.CANCELLED);
        } finally {
            Thread.interrupted();
        }
    }

    @ParameterizedTest
    @EnumSource(ProviderException.Kind.class)
    void everyKindHasOneOfThreeCodes(ProviderException.Kind kind) {
        ProviderException e = new ProviderException(kind, "openai", null, 1, "failed", null);

        assertThat(e.code()).isIn(EnumSet.of(ErrorCode.TIMEOUT, ErrorCode.CANCELLED, ErrorCode.NODE_FAILED));
        assertThat(e.code() == ErrorCode.TIMEOUT).isEqualTo(kind == ProviderException.Kind.TIMEOUT);
        assertThat(e.code() == ErrorCode.CANCELLED).isEqualTo(kind == ProviderException.Kind.CANCELLED);
    }

    @Test
    void aPricingFileThatCannotBeReadIsAUsageError(@TempDir Path dir) {
        for (Path file : new Path[] {dir.resolve("missing.yaml"), dir.resolve("missing.json"),
                dir.resolve("no/such/dir/prices.yaml")}) {
            LoopflowException e = catchThrowableOfType(LoopflowException.class,
                    () -> Pricing.defaults().withOverrides(file));

            assertThat(e).as(file.toString()).isNotNull();
            assertThat(e.code()).isEqualTo(ErrorCode.USAGE);
        }
    }

    @Test
    void aPricingFileThatIsADirectoryIsAReadErrorNotMalformedContent_bugDirectoryReadAsInvalidYaml(@TempDir Path dir)
            throws Exception {
        for (String name : new String[] {"prices.yaml", "prices.json"}) {
            Path directory = Files.createDirectories(dir.resolve(name));

            LoopflowException e = catchThrowableOfType(LoopflowException.class,
                    () -> Pricing.defaults().withOverrides(directory));

            assertThat(e).as(name).isNotNull();
            assertThat(e.code()).isEqualTo(ErrorCode.USAGE);
        }
    }
}
