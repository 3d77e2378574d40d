package dev.loopflow.llm.provider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Records the waits a retry loop asks for instead of waiting, so retry tests take milliseconds. */
final class RecordingSleeper implements RetryPolicy.Sleeper {

    private final List<Duration> sleeps = new ArrayList<>();

    @Override
    public synchronized void sleep(Duration duration) {
        sleeps.add(duration);
    }

    synchronized List<Duration> sleeps() {
        return List.copyOf(sleeps);
    }

    /** Retries without jitter and with short, recorded backoffs: 100 ms, 200 ms, 400 ms, ... */
    RetryPolicy policy(int maxAttempts) {
        return RetryPolicy.builder()
                .maxAttempts(maxAttempts)
                .initialBackoff(Duration.ofMillis(100))
                .maxBackoff(Duration.ofSeconds(2))
                .jitter(0)
                .sleeper(this)
                .build();
    }
}
