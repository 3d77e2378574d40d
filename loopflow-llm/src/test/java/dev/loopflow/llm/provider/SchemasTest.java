package dev.loopflow.llm.provider;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class SchemasTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void closesNestedObjectSchemasButKeepsExplicitChoices() throws Exception {
        String schema = """
                {"type":"object","properties":{
                  "a":{"type":"object","properties":{"x":{"type":"string"}}},
                  "b":{"type":"array","items":{"properties":{"y":{"type":"number"}}}},
                  "c":{"anyOf":[{"type":"object","properties":{}},{"type":"null"}]},
                  "d":{"type":"object","additionalProperties":true},
                  "e":{"$ref":"#/$defs/E"}},
                 "$defs":{"E":{"type":["object","null"],"properties":{}}}}
                """;

        JsonNode closed = MAPPER.readTree(Schemas.closeObjects(schema));

        assertThat(closed.path("additionalProperties").asBoolean(true)).isFalse();
        assertThat(closed.at("/properties/a/additionalProperties").asBoolean(true)).isFalse();
        assertThat(closed.at("/properties/b/items/additionalProperties").asBoolean(true)).isFalse();
        assertThat(closed.at("/properties/c/anyOf/0/additionalProperties").asBoolean(true)).isFalse();
        assertThat(closed.at("/properties/c/anyOf/1").has("additionalProperties")).isFalse();
        assertThat(closed.at("/properties/d/additionalProperties").asBoolean()).isTrue();
        assertThat(closed.at("/$defs/E/additionalProperties").asBoolean(true)).isFalse();
        assertThat(closed.at("/properties/a/properties/x").has("additionalProperties")).isFalse();
    }

    @Test
    void errorExcerptPrefersTheProviderMessage() {
        assertThat(Failure.excerpt("{\"error\":{\"message\":\"quota exceeded\",\"type\":\"x\"}}"))
                .isEqualTo("quota exceeded");
        assertThat(Failure.excerpt("{\"error\":\"model not found\"}")).isEqualTo("model not found");
        assertThat(Failure.excerpt("<html>\n  Bad   gateway\n</html>")).isEqualTo("Bad gateway");
        assertThat(Failure.excerpt("")).isEqualTo("(empty body)");
        assertThat(Failure.excerpt("x".repeat(1000))).hasSize(301).endsWith("…");
    }
}
