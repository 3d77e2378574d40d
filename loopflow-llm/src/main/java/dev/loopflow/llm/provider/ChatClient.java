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

    /**
     * Sends {@code call} as {@link #chat} does, with the same retries, timeout, result and errors, but asks the
     * provider to stream its reply and hands the reply's text to {@code stream} as it arrives, on the calling
     * thread. Only text is streamed: tool calls (and structured output a provider delivers as one) arrive whole in
     * the reply. The attempt's timeout bounds the whole stream. An attempt that fails after streaming text is
     * retried like any other (a broken connection is transient): {@link TextStream#restarted} says that the text
     * streamed so far is void. Interrupting the calling thread stops the stream and closes its connection.
     *
     * <p>This default sends {@code call} unstreamed and hands over the whole text at once.
     */
    default ChatReply stream(ChatCall call, TextStream stream) {
        ChatReply reply = chat(call);
        if (!reply.text().isEmpty()) {
            stream.text(reply.text());
        }
        return reply;
    }

    /** Receives a streamed reply's text. */
    interface TextStream {

        /** The reply's text since the previous call (a delta). */
        void text(String delta);

        /** The attempt that streamed text failed and the call is sent again: its text will not be the reply. */
        default void restarted() {}
    }
}
