package dev.loopflow.llm.provider;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads a whole (non-streamed) provider answer into memory, up to {@link #MAX_BYTES}: a server that sends more, or
 * announces more in {@code Content-Length}, fails the attempt with {@link TooLarge} (an unreadable reply) instead of
 * filling the heap. Every blocking provider call reads its answer, success or error, through here.
 */
final class ReplyBody {

    /** Far above any chat completion (a 128k-token reply is well under 1 MiB), far below a heap. */
    static final int MAX_BYTES = 16 << 20;

    private ReplyBody() {}

    /** The answer's bytes, failing with {@link TooLarge} beyond {@code max}. */
    static HttpResponse.BodyHandler<byte[]> capped(int max) {
        return info -> new Capped(max, info.headers().firstValueAsLong("content-length").orElse(-1));
    }

    /** An answer larger than the cap; classified as an unreadable reply, never retried. */
    static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        TooLarge(int max) {
            super("the reply is larger than " + max + " bytes");
        }
    }

    private static final class Capped implements HttpResponse.BodySubscriber<byte[]> {
        private final int max;
        private final long declared;
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private final List<byte[]> parts = new ArrayList<>();
        private Flow.Subscription subscription;
        private int size;

        Capped(int max, long declared) {
            this.max = max;
            this.declared = declared;
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            if (declared > max) {
                s.cancel();
                result.completeExceptionally(new TooLarge(max));
                return;
            }
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            if (result.isDone()) {
                return;
            }
            for (ByteBuffer b : buffers) {
                int n = b.remaining();
                if (n > max - size) {
                    subscription.cancel();
                    parts.clear();
                    result.completeExceptionally(new TooLarge(max));
                    return;
                }
                byte[] part = new byte[n];
                b.get(part);
                parts.add(part);
                size += n;
            }
        }

        @Override
        public void onError(Throwable error) {
            result.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            if (result.isDone()) {
                return;
            }
            if (parts.size() == 1) {
                result.complete(parts.get(0));
                return;
            }
            byte[] all = new byte[size];
            int at = 0;
            for (byte[] part : parts) {
                System.arraycopy(part, 0, all, at, part.length);
                at += part.length;
            }
            parts.clear();
            result.complete(all);
        }
    }
}
