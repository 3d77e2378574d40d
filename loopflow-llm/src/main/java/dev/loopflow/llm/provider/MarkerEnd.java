package dev.loopflow.llm.provider;

import dev.langchain4j.http.client.sse.ServerSentEvent;
import java.util.function.Predicate;

/** A stream that is complete once one event, its provider's end marker, has arrived. */
final class MarkerEnd implements ProviderHttpClient.StreamEnd {

    private final Predicate<ServerSentEvent> marker;
    private final String name;
    private boolean seen;

    MarkerEnd(Predicate<ServerSentEvent> marker, String name) {
        this.marker = marker;
        this.name = name;
    }

    @Override
    public void see(ServerSentEvent event) {
        seen = seen || marker.test(event);
    }

    @Override
    public boolean complete() {
        return seen;
    }

    @Override
    public String missing() {
        return name;
    }
}
