package dev.loopflow.core.model;

import java.util.Map;

/**
 * A declared input: a simple type ({@code string|number|integer|boolean|object|array}) or a JSON Schema, with
 * an optional default. {@code schema} is null for simple types.
 */
public record InputSpec(String name, String type, Map<String, Object> schema, boolean hasDefault, Object defaultValue,
    String description) {}
