package dev.loopflow.llm.provider;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How a {@link ChatClient} retries transient failures (see {@link ProviderException.Kind#retryable()}).
 *
 * <p>The wait before retry {@code n} (1-based) is {@code min(maxBackoff, initialBackoff * multiplier^(n-1))},
 * reduced by a random fraction of up to {@code jitter} so that many clients failing together do not retry in
 * lockstep. When the provider says how long to wait ({@code Retry-After} in seconds or as an HTTP date, or
 * OpenAI's {@code retry-after-ms}) and that wait is at most {@code maxRetryAfter}, it is used as-is instead;
 * a longer demand falls back to the computed backoff rather than stalling a workflow for minutes.
 *
 * @param maxAttempts    total attempts including the first, at least 1
 * @param initialBackoff wait before the first retry
 * @param maxBackoff     cap on computed waits
 * @param multiplier     growth factor between consecutive waits, at least 1
 * @param jitter         fraction in [0, 1] by which a computed wait may be randomly shortened
 * @param maxRetryAfter  longest provider-requested wait that is honoured
 * @param sleeper        performs the waits; tests substitute one that records instead of sleeping
 * @param clock          the time {@code Retry-After} HTTP dates are measured against
 */
public record RetryPolicy(
        int maxAttempts,
        Duration initialBackoff,
        Duration maxBackoff,
        double multiplier,
        double jitter,
        Duration maxRetryAfter,
        Sleeper sleeper,
        Clock clock) {

    /** Waits for a duration; {@link #SYSTEM} really sleeps. */
    @FunctionalInterface
    public interface Sleeper {

        Sleeper SYSTEM = duration -> Thread.sleep(duration);

        void sleep(Duration duration) throws InterruptedException;
    }

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1 but was " + maxAttempts);
        }
        requireNonNegative("initialBackoff", initialBackoff);
        requireNonNegative("maxBackoff", maxBackoff);
        requireNonNegative("maxRetryAfter", maxRetryAfter);
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException(
                    "maxBackoff must be >= initialBackoff (" + initialBackoff + ") but was " + maxBackoff);
        }
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("multiplier must be a finite number >= 1 but was " + multiplier);
        }
        if (!(jitter >= 0.0 && jitter <= 1.0)) {
            throw new IllegalArgumentException("jitter must be within [0, 1] but was " + jitter);
        }
        Objects.requireNonNull(sleeper, "sleeper must not be null");
        Objects.requireNonNull(clock, "clock must not be null");
    }

    /** 3 attempts, waits of about 0.5 s then 1 s (capped at 30 s), Retry-After honoured up to 60 s. */
    public static RetryPolicy defaults() {
        return builder().build();
    }

    /** A single attempt: failures surface immediately. */
    public static RetryPolicy none() {
        return builder().maxAttempts(1).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder()
                .maxAttempts(maxAttempts)
                .initialBackoff(initialBackoff)
                .maxBackoff(maxBackoff)
                .multiplier(multiplier)
                .jitter(jitter)
                .maxRetryAfter(maxRetryAfter)
                .sleeper(sleeper)
                .clock(clock);
    }

    /** The computed (jittered) wait before retry number {@code retry}, 1-based. */
    public Duration backoff(int retry) {
        if (retry < 1) {
            throw new IllegalArgumentException("retry must be >= 1 but was " + retry);
        }
        double millis = initialBackoff.toMillis() * Math.pow(multiplier, retry - 1);
        double capped = Math.min(millis, maxBackoff.toMillis());
        double jittered = capped * (1.0 - jitter * ThreadLocalRandom.current().nextDouble());
        return Duration.ofMillis(Math.round(jittered));
    }

    /** The wait before retry {@code retry}: the provider's demand when acceptable, else {@link #backoff}. */
    Duration delayBefore(int retry, Optional<Duration> retryAfter) {
        return retryAfter
                .filter(wait -> !wait.isNegative() && wait.compareTo(maxRetryAfter) <= 0)
                .orElseGet(() -> backoff(retry));
    }

    private static void requireNonNegative(String field, Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException(field + " must be a non-negative duration but was " + value);
        }
    }

    /** Starts from {@link #defaults()}; {@link #build()} validates. */
    public static final class Builder {

        private int maxAttempts = 3;
        private Duration initialBackoff = Duration.ofMillis(500);
        private Duration maxBackoff = Duration.ofSeconds(30);
        private double multiplier = 2.0;
        private double jitter = 0.5;
        private Duration maxRetryAfter = Duration.ofSeconds(60);
        private Sleeper sleeper = Sleeper.SYSTEM;
        private Clock clock = Clock.systemUTC();

        private Builder() {}

        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder initialBackoff(Duration initialBackoff) {
            this.initialBackoff = initialBackoff;
            return this;
        }

        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
            return this;
        }

        public Builder multiplier(double multiplier) {
            this.multiplier = multiplier;
            return this;
        }

        public Builder jitter(double jitter) {
            this.jitter = jitter;
            return this;
        }

        public Builder maxRetryAfter(Duration maxRetryAfter) {
            this.maxRetryAfter = maxRetryAfter;
            return this;
        }

        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = sleeper;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public RetryPolicy build() {
            return new RetryPolicy(
                    maxAttempts, initialBackoff, maxBackoff, multiplier, jitter, maxRetryAfter, sleeper, clock);
        }
    }
}
