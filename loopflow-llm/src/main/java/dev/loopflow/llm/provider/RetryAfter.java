package dev.loopflow.llm.provider;

import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Reads how long a provider asked us to wait before retrying. */
final class RetryAfter {

    private RetryAfter() {}

    /**
     * The wait requested by {@code retry-after-ms} (OpenAI; more precise, so preferred) or {@code Retry-After}
     * (delay-seconds, possibly fractional, or an HTTP date measured against {@code clock}); empty when absent
     * or unreadable. A date in the past means "now".
     */
    static Optional<Duration> from(Map<String, List<String>> headers, Clock clock) {
        Optional<Duration> millis = header(headers, "retry-after-ms").flatMap(value -> seconds(value, 0.001));
        if (millis.isPresent()) {
            return millis;
        }
        return header(headers, "retry-after").flatMap(value -> parse(value, clock));
    }

    static Optional<Duration> parse(String value, Clock clock) {
        Optional<Duration> seconds = seconds(value, 1.0);
        if (seconds.isPresent()) {
            return seconds;
        }
        try {
            ZonedDateTime at = ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
            Duration wait = Duration.between(clock.instant(), at.toInstant());
            return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static Optional<Duration> seconds(String value, double unitInSeconds) {
        try {
            double amount = Double.parseDouble(value.trim());
            if (!(amount >= 0) || Double.isInfinite(amount)) {
                return Optional.empty();
            }
            return Optional.of(Duration.ofNanos(Math.round(amount * unitInSeconds * 1_000_000_000d)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> header(Map<String, List<String>> headers, String name) {
        return headers.entrySet().stream()
                .filter(entry -> entry.getKey() != null && entry.getKey().toLowerCase(Locale.ROOT).equals(name))
                .flatMap(entry -> entry.getValue().stream())
                .findFirst();
    }
}
