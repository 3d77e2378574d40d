package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2025-06-01T12:00:00Z"), ZoneOffset.UTC);

    @Test
    void backoffDoublesUpToTheCap() {
        RetryPolicy policy = RetryPolicy.builder()
                .initialBackoff(Duration.ofMillis(500))
                .maxBackoff(Duration.ofSeconds(3))
                .jitter(0)
                .build();

        assertThat(List.of(policy.backoff(1), policy.backoff(2), policy.backoff(3), policy.backoff(4), policy.backoff(9)))
                .containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
                        Duration.ofSeconds(3), Duration.ofSeconds(3));
    }

    @Test
    void jitterOnlyShortensTheWait() {
        RetryPolicy policy = RetryPolicy.builder().initialBackoff(Duration.ofSeconds(1)).jitter(0.5).build();

        for (int i = 0; i < 200; i++) {
            assertThat(policy.backoff(1)).isBetween(Duration.ofMillis(500), Duration.ofSeconds(1));
        }
    }

    @Test
    void providerRequestedWaitWinsUnlessItIsTooLong() {
        RetryPolicy policy = RetryPolicy.builder()
                .initialBackoff(Duration.ofMillis(100))
                .jitter(0)
                .maxRetryAfter(Duration.ofSeconds(10))
                .build();

        assertThat(policy.delayBefore(1, Optional.of(Duration.ofSeconds(7)))).isEqualTo(Duration.ofSeconds(7));
        assertThat(policy.delayBefore(1, Optional.of(Duration.ofMinutes(5)))).isEqualTo(Duration.ofMillis(100));
        assertThat(policy.delayBefore(2, Optional.empty())).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void retryAfterAcceptsSecondsFractionsAndHttpDates() {
        assertThat(RetryAfter.parse("2", CLOCK)).hasValue(Duration.ofSeconds(2));
        assertThat(RetryAfter.parse("0.5", CLOCK)).hasValue(Duration.ofMillis(500));
        assertThat(RetryAfter.parse("Sun, 01 Jun 2025 12:00:04 GMT", CLOCK)).hasValue(Duration.ofSeconds(4));
        assertThat(RetryAfter.parse("Sun, 01 Jun 2025 11:00:00 GMT", CLOCK)).hasValue(Duration.ZERO);
        assertThat(RetryAfter.parse("soon", CLOCK)).isEmpty();
        assertThat(RetryAfter.parse("-1", CLOCK)).isEmpty();
    }

    @Test
    void retryAfterHeadersAreFoundInAnyCase() {
        assertThat(RetryAfter.from(Map.of("Retry-After", List.of("3")), CLOCK)).hasValue(Duration.ofSeconds(3));
        assertThat(RetryAfter.from(Map.of("retry-after-ms", List.of("20"), "retry-after", List.of("3")), CLOCK))
                .hasValue(Duration.ofMillis(20));
        assertThat(RetryAfter.from(Map.of(), CLOCK)).isEmpty();
    }

    @Test
    void builderNamesTheInvalidField() {
        assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(0).build())
                .hasMessage("maxAttempts must be >= 1 but was 0");
        assertThatThrownBy(() -> RetryPolicy.builder().jitter(1.5).build())
                .hasMessage("jitter must be within [0, 1] but was 1.5");
        assertThatThrownBy(() -> RetryPolicy.builder().multiplier(0.5).build())
                .hasMessage("multiplier must be a finite number >= 1 but was 0.5");
        assertThatThrownBy(() -> RetryPolicy.builder().initialBackoff(Duration.ofSeconds(-1)).build())
                .hasMessage("initialBackoff must be a non-negative duration but was PT-1S");
        assertThatThrownBy(() -> RetryPolicy.builder().maxBackoff(Duration.ofMillis(10)).build())
                .hasMessage("maxBackoff must be >= initialBackoff (PT0.5S) but was PT0.01S");
    }

    @Test
    void noneMakesASingleAttempt() {
        assertThat(RetryPolicy.none().maxAttempts()).isEqualTo(1);
        assertThat(RetryPolicy.defaults().toBuilder().build()).isEqualTo(RetryPolicy.defaults());
    }
}
