package dev.loopflow.testkit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;

/** One shared mapper; ObjectMapper is thread-safe once configured and costly to create per request. */
final class Json {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}

    /** Parses leniently: a body that is not JSON yields a missing node rather than failing the exchange. */
    static JsonNode parseOrMissing(String text) {
        if (text == null || text.isBlank()) {
            return MissingNode.getInstance();
        }
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            return MissingNode.getInstance();
        }
    }

    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise fake response " + value, e);
        }
    }

    static String quote(String text) {
        return write(text);
    }
}
