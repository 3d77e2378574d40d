package dev.loopflow.llm.provider;

import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One attempt of a streamed call, made to look like a blocking one: the caller's thread waits for the reply and
 * hands each piece of text to the {@link ChatClient.TextStream} itself, so text arrives in order, on the node's
 * thread, and the wait honours the attempt's timeout and the thread's interrupt.
 *
 * <p>LangChain4j delivers a stream's parts on the HTTP client's threads; they are queued here. The HTTP request is
 * issued on the caller's thread while {@link #run} starts it, which is how {@link ProviderHttpClient} finds this
 * attempt's {@link Transport} (a thread-local, as {@link CallTimeout} does for timeouts): through it the transport
 * reports a body that broke or ended early, and {@link #close} cancels the request and closes its connection.
 */
final class ChatStream implements AutoCloseable {

    private static final ThreadLocal<Transport> CURRENT = new ThreadLocal<>();

    /** What the queue holds: a piece of text, the complete response, or the error that ended the attempt. */
    private sealed interface Part {}

    private record Text(String delta) implements Part {}

    private record Done(ChatResponse response) implements Part {}

    private record Failed(Throwable error) implements Part {}

    private final BlockingQueue<Part> parts = new LinkedBlockingQueue<>();
    private final Transport transport = new Transport();
    private boolean streamedText;

    /** The transport side of the attempt in progress on this thread, or null. */
    static Transport transport() {
        return CURRENT.get();
    }

    /**
     * Sends {@code request} and waits for its complete response, handing text to {@code sink} as it arrives.
     *
     * @throws InterruptedException when the thread is interrupted while waiting (the stream is then closed)
     * @throws RuntimeException     the attempt's error: the provider's, a broken stream, or a timeout
     */
    ChatResponse run(StreamingChatModel model, ChatRequest request, Duration timeout, ChatClient.TextStream sink)
            throws InterruptedException {
        StreamingChatResponseHandler handler = new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String partialResponse) {
                if (partialResponse != null && !partialResponse.isEmpty()) {
                    parts.add(new Text(partialResponse));
                }
            }

            @Override
            public void onCompleteResponse(ChatResponse completeResponse) {
                parts.add(new Done(completeResponse));
            }

            @Override
            public void onError(Throwable error) {
                parts.add(new Failed(error));
            }
        };
        Transport previous = CURRENT.get();
        CURRENT.set(transport);
        try {
            CallTimeout.with(timeout, () -> {
                model.chat(request, handler);
                return null;
            });
        } finally {
            if (previous == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(previous);
            }
        }
        long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
            Part part = left == Long.MAX_VALUE ? parts.take() : parts.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            switch (part) {
                case null -> throw new TimeoutException("no complete reply within " + timeout);
                case Text t -> {
                    streamedText = true;
                    sink.text(t.delta());
                }
                case Done d -> {
                    return d.response();
                }
                case Failed f -> throw f.error() instanceof RuntimeException r ? r : new RuntimeException(f.error());
            }
        }
    }

    /** Whether this attempt handed any text to its sink. */
    boolean streamedText() {
        return streamedText;
    }

    /** Stops the attempt: the request is cancelled and its connection closed (nothing, when it has ended). */
    @Override
    public void close() {
        transport.cancel();
    }

    /** What {@link ProviderHttpClient} reports to, and is cancelled through. */
    final class Transport {
        private final List<Runnable> cancels = new ArrayList<>();
        private boolean cancelled;

        /** Registers how to stop the request; run at once when the attempt is already over. */
        void onCancel(Runnable cancel) {
            synchronized (this) {
                if (!cancelled) {
                    cancels.add(cancel);
                    return;
                }
            }
            cancel.run();
        }

        synchronized boolean cancelled() {
            return cancelled;
        }

        /** The transport failed or the body ended before the provider's end marker. */
        void failed(Throwable error) {
            parts.add(new Failed(error));
        }

        private void cancel() {
            List<Runnable> run;
            synchronized (this) {
                if (cancelled) {
                    return;
                }
                cancelled = true;
                run = List.copyOf(cancels);
                cancels.clear();
            }
            for (Runnable r : run) {
                try {
                    r.run();
                } catch (RuntimeException ignored) {
                    // stopping is best effort: the attempt is over for its caller either way
                }
            }
        }
    }
}
