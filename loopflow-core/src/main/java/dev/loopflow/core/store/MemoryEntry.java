package dev.loopflow.core.store;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One shared-memory value as a store keeps it. The store keeps bytes as given; compressing and decompressing is
 * the engine's job ({@code compressed} says which form {@code value} is in).
 *
 * @param scope who owns the value: a run id, {@code <run>/session/<name>}, {@code agent/<workflow>/<agent>}, or
 *     the empty string for the global namespace
 * @param namespace {@code SESSION}, {@code AGENT}, {@code GLOBAL} or {@code WORKFLOW}
 * @param metadata string metadata stored with the value
 */
public record MemoryEntry(String scope, String namespace, String key, byte[] value, boolean compressed,
    Map<String, String> metadata, Instant storedAt) {
  public MemoryEntry {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(storedAt, "storedAt");
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
  }
}
