package dev.loopflow.llm.provider;

/**
 * Sends chat calls to one configured provider endpoint.
 *
 * <p>A client is bound to a provider, base URL, credentials and retry policy (see {@link ProviderSettings}),
 * not to a model: the model is named by each {@link ChatCall}. Clients are thread-safe and meant to be created
 * once and shared, because each owns an HTTP connection pool.
 */
@FunctionalInterface
public interface ChatClient {

    /**
     * Sends {@code call}, retrying transient failures according to the client's {@link RetryPolicy}.
     *
     * @throws ProviderException when the provider fails permanently or retries are exhausted
     */
    ChatReply chat(ChatCall call);
}
