package dev.loopflow.llm.provider;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Our tool descriptions in LangChain4j's form, which each provider's mapper turns into its wire format (OpenAI
 * {@code tools[].function}, Anthropic {@code tools[].input_schema}, Ollama {@code tools[].function}).
 *
 * <p>LangChain4j wants the parameters as a typed object schema. The converter it ships keeps every keyword: a
 * property it has no type for (one with {@code pattern}, {@code minimum}, ...) is passed on verbatim, so only the
 * top level must be a plain object schema; keywords there that a typed object schema cannot hold are left out
 * (the arguments are still checked against the whole schema before a tool runs).
 */
final class ToolSpecs {

    private static final Set<String> OBJECT_KEYWORDS =
            Set.of("type", "description", "properties", "required", "additionalProperties", "$defs");

    private ToolSpecs() {}

    static ToolSpecification toLangChain(ToolSpec spec) {
        return ToolSpecification.builder()
                .name(spec.name())
                .description(spec.description().isEmpty() ? null : spec.description())
                .parameters(parameters(spec.parameters()))
                .build();
    }

    static JsonObjectSchema parameters(Map<String, Object> schema) {
        Map<String, Object> root = new LinkedHashMap<>();
        schema.forEach((k, v) -> {
            if (OBJECT_KEYWORDS.contains(k) && !(k.equals("additionalProperties") && !(v instanceof Boolean))) {
                root.put(k, v);
            }
        });
        root.put("type", "object");
        JsonSchemaElement element = JsonSchemaElementJsonUtils.fromMap(root);
        if (element instanceof JsonObjectSchema object) {
            return object;
        }
        throw new IllegalArgumentException("the parameters of a tool must be an object schema but were " + schema);
    }
}
