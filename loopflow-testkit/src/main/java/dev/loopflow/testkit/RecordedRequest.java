package dev.loopflow.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One request as a fake server received it.
 *
 * @param method  HTTP method, upper case
 * @param path    request path without the query string, e.g. {@code /v1/chat/completions}
 * @param query   raw query string, or {@code null}
 * @param headers header values by lower-cased name (HTTP names are case-insensitive)
 * @param body    the body as text
 * @param json    the body parsed as JSON; a missing node when the body is empty or not JSON
 */
public record RecordedRequest(
        String method, String path, String query, Map<String, List<String>> headers, String body, JsonNode json) {

    public RecordedRequest {
        Objects.requireNonNull(method, "method must not be null");
        Objects.requireNonNull(path, "path must not be null");
        Objects.requireNonNull(body, "body must not be null");
        Objects.requireNonNull(json, "json must not be null");
        TreeMap<String, List<String>> normalised = new TreeMap<>();
        if (headers != null) {
            headers.forEach((name, values) -> normalised.merge(
                    name.toLowerCase(Locale.ROOT), List.copyOf(values), (a, b) -> concat(a, b)));
        }
        headers = Collections.unmodifiableMap(normalised);
    }

    /** The first value of header {@code name} (any case), or {@code null} when absent. */
    public String header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The {@code model} field of a JSON body, or {@code null}. */
    public String model() {
        JsonNode model = json.path("model");
        return model.isTextual() ? model.asText() : null;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
