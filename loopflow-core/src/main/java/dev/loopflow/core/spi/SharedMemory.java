package dev.loopflow.core.spi;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Values nodes share by namespace and key, as a node sees them. Values over 1 KiB are stored gzip-compressed and
 * read back decompressed; every value carries string metadata ({@code type}, {@code stored_at}, {@code full_size},
 * {@code compressed}, and {@code agent_id}/{@code stage_num} where the writer gave them).
 *
 * <p>Namespaces: {@link Namespace#WORKFLOW} belongs to the run and is cleared when it ends (unless the workflow
 * keeps it); {@link Namespace#SESSION} to one chat session of the run; {@link Namespace#AGENT} to one agent id of
 * one workflow, across its runs; {@link Namespace#GLOBAL} to every run using the same store. What a resumed run
 * sees is what the store holds.
 */
public interface SharedMemory {
  enum Namespace {
    SESSION, AGENT, GLOBAL, WORKFLOW;

    /** The namespace named {@code name}, case-insensitively, or empty. */
    public static Optional<Namespace> parse(String name) {
      if (name == null) {
        return Optional.empty();
      }
      for (Namespace n : values()) {
        if (n.name().equalsIgnoreCase(name.strip())) {
          return Optional.of(n);
        }
      }
      return Optional.empty();
    }
  }

  /** One value, decompressed. */
  record Item(Namespace namespace, String key, String value, Map<String, String> metadata, Instant storedAt) {}

  /**
   * Stores {@code value} under {@code key}, replacing what was there. {@code metadata} is added to the standard
   * fields (it cannot replace them). {@code owner} names the session (SESSION) or agent (AGENT) the value
   * belongs to; it is ignored for WORKFLOW and GLOBAL.
   */
  Item put(Namespace namespace, String owner, String key, String value, Map<String, String> metadata);

  /** Throws {@code shared_memory_key_not_found} when there is no such key. */
  Item get(Namespace namespace, String owner, String key);

  Optional<Item> find(Namespace namespace, String owner, String key);

  /** The values whose key starts with {@code prefix} ("" for all), ordered by key. */
  List<Item> list(Namespace namespace, String owner, String prefix);

  /** Deletes the values whose key starts with {@code prefix} ("" for all) and returns how many. */
  int delete(Namespace namespace, String owner, String prefix);
}
