package dev.loopflow.llm.provider;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Carries a call's timeout from {@link LangChainChatClient} down to {@link ProviderHttpClient}.
 *
 * <p>LangChain4j fixes timeouts when a model is built, but a {@link ChatCall} may choose its own. Model calls
 * are synchronous, so the HTTP request is issued on the calling thread and a thread-local reaches it without
 * building a model per timeout.
 */
final class CallTimeout {

    private static final ThreadLocal<Duration> CURRENT = new ThreadLocal<>();

    private CallTimeout() {}

    static <T> T with(Duration timeout, Supplier<T> action) {
        Duration previous = CURRENT.get();
        CURRENT.set(timeout);
        try {
            return action.get();
        } finally {
            if (previous == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(previous);
            }
        }
    }

    /** The timeout of the call in progress on this thread, or {@code null}. */
    static Duration current() {
        return CURRENT.get();
    }
}
