package dev.loopflow.llm.provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.request.ResponseFormatType;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import dev.langchain4j.model.chat.request.json.JsonSchema;
import java.util.List;

/** Turns a call's JSON Schema text into the structured-output request of each provider. */
final class Schemas {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    // OpenAI requires a name matching ^[a-zA-Z0-9_-]+$; it is not shown to users.
    private static final String SCHEMA_NAME = "output";
    private static final List<String> SUBSCHEMA_ARRAYS = List.of("anyOf", "oneOf", "allOf", "prefixItems");
    private static final List<String> SUBSCHEMA_MAPS = List.of("properties", "$defs", "definitions");

    private Schemas() {}

    /** A JSON response format carrying the schema verbatim, so no keyword is lost in translation. */
    static ResponseFormat responseFormat(String schema) {
        return ResponseFormat.builder()
                .type(ResponseFormatType.JSON)
                .jsonSchema(JsonSchema.builder().name(SCHEMA_NAME).rootElement(JsonRawSchema.from(schema)).build())
                .build();
    }

    /**
     * The schema with {@code "additionalProperties": false} added to every object schema that leaves it
     * unset: Anthropic's structured outputs reject object schemas without it, and users rarely write it.
     */
    static String closeObjects(String schema) {
        try {
            JsonNode root = MAPPER.readTree(schema);
            close(root);
            return MAPPER.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("jsonSchema must be JSON but could not be parsed", e);
        }
    }

    private static void close(JsonNode node) {
        if (!(node instanceof ObjectNode object)) {
            return;
        }
        if (isObjectSchema(object) && !object.has("additionalProperties")) {
            object.put("additionalProperties", false);
        }
        for (String keyword : SUBSCHEMA_MAPS) {
            object.path(keyword).forEach(Schemas::close);
        }
        for (String keyword : SUBSCHEMA_ARRAYS) {
            object.path(keyword).forEach(Schemas::close);
        }
        close(object.path("items"));
        close(object.path("additionalProperties"));
    }

    private static boolean isObjectSchema(ObjectNode schema) {
        JsonNode type = schema.path("type");
        if (type.isTextual()) {
            return type.asText().equals("object");
        }
        if (type.isArray()) {
            for (JsonNode t : type) {
                if (t.asText().equals("object")) {
                    return true;
                }
            }
            return false;
        }
        return schema.has("properties");
    }
}
