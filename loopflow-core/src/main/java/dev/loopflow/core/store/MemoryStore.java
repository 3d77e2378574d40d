package dev.loopflow.core.store;

import java.util.List;
import java.util.Optional;

/** Shared memory: values nodes share by scope, namespace and key. */
public interface MemoryStore {

  /** Stores (or replaces) a value under its scope, namespace and key. Durable when it returns. */
  void putMemory(MemoryEntry entry);

  Optional<MemoryEntry> getMemory(String scope, String namespace, String key);

  /** The entries whose key starts with {@code keyPrefix} ("" for all), ordered by key. */
  List<MemoryEntry> listMemory(String scope, String namespace, String keyPrefix);

  /** Deletes the entries whose key starts with {@code keyPrefix} ("" for all); returns how many. */
  int deleteMemory(String scope, String namespace, String keyPrefix);
}
