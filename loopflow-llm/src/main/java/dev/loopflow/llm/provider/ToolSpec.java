package dev.loopflow.llm.provider;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A tool offered to the model.
 *
 * @param name        what the model calls it by: 1 to 64 letters, digits, {@code _} or {@code -} (the rule of the
 *                    strictest provider, OpenAI)
 * @param description what it does, for the model
 * @param parameters  the JSON Schema of its arguments, an object schema as plain data
 */
public record ToolSpec(String name, String description, Map<String, Object> parameters) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    public ToolSpec {
        if (!isValidName(name)) {
            throw new IllegalArgumentException("tool name must be 1 to 64 letters, digits, '_' or '-' but was "
                    + (name == null ? "null" : "'" + name + "'"));
        }
        description = description == null ? "" : description;
        Objects.requireNonNull(parameters, "parameters must not be null");
        parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    }

    /** Whether every provider accepts {@code name} as a tool name. */
    public static boolean isValidName(String name) {
        return name != null && NAME.matcher(name).matches();
    }
}
