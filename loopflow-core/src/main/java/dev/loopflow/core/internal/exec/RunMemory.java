package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.spi.SharedMemory;
import dev.loopflow.core.store.MemoryEntry;
import dev.loopflow.core.store.RunStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * A run's view of shared memory over its store. Scopes: WORKFLOW is the run ({@code <run>}), SESSION one session
 * of it ({@code <run>/session/<name>}), AGENT one agent id of the workflow across runs
 * ({@code agent/<workflow>/<agent>}), GLOBAL everything on the store ({@code ""}). The store is the only copy, so a
 * resumed run sees exactly what was written before the crash. Values and metadata pass through the run's redactor
 * before they are stored, like the journal: AGENT and GLOBAL values outlive the run and other runs read them, so a
 * credential a model writes there must not reach them (readers of this run see the mask too).
 */
final class RunMemory implements SharedMemory {
  /** Values longer than this many bytes are stored gzip-compressed. */
  static final int COMPRESS_OVER = 1024;
  static final int MAX_KEY_CHARS = 512;
  /** What every store keeps in a key (its index limit); a key of 512 characters outside ASCII can take more. */
  static final int MAX_KEY_BYTES = 1024;
  /** A decompressed value may not exceed this (a stored gzip bomb must not exhaust memory). */
  static final int MAX_VALUE_BYTES = 16 << 20;

  private final RunStore store;
  private final String runId;
  private final String workflow;
  private final Clock clock;
  private final Redactor redactor;

  RunMemory(RunStore store, String runId, String workflow, Clock clock, Redactor redactor) {
    this.store = store;
    this.runId = runId;
    this.workflow = workflow;
    this.clock = clock;
    this.redactor = redactor;
  }

  /**
   * Drops the run's WORKFLOW namespace when the run can no longer be resumed (it completed or was cancelled), unless
   * the workflow's restart policy keeps it ({@code keep_shared_memory}). Never throws: a store failing now leaves
   * only disk space behind, and the run's own end is what matters.
   */
  static void clearWorkflow(Workflow workflow, RunStore store, String runId) {
    RestartPolicy p = workflow == null ? null : workflow.restartPolicy();
    if (p != null && p.keepWorkflowMemory()) {
      return;
    }
    try {
      store.deleteMemory(runId, Namespace.WORKFLOW.name(), "");
    } catch (RuntimeException e) {
      // see above
    }
  }

  String scope(Namespace ns, String owner) {
    return switch (ns) {
      case WORKFLOW -> runId;
      case SESSION -> runId + "/session/" + ownerOf(ns, owner);
      case AGENT -> "agent/" + workflow + "/" + ownerOf(ns, owner);
      case GLOBAL -> "";
    };
  }

  private static String ownerOf(Namespace ns, String owner) {
    if (owner == null || owner.isEmpty()) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "shared memory: the " + ns + " namespace needs the "
          + (ns == Namespace.SESSION ? "session" : "agent") + " it belongs to");
    }
    return owner;
  }

  private static void checkKey(String key, boolean prefix) {
    if (key == null || (!prefix && key.isEmpty())) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "shared memory: a key must not be empty");
    }
    if (key.length() > MAX_KEY_CHARS) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "shared memory: key has " + key.length()
          + " characters; the limit is " + MAX_KEY_CHARS);
    }
    // Stores keep keys as text exactly, or refuse them: checked here so the refusal is this one clear error.
    int bad = notText(key);
    if (bad >= 0 || key.indexOf('\0') >= 0) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "shared memory: key contains " + (bad >= 0
          ? "an unpaired surrogate at index " + bad : "a NUL character at index " + key.indexOf('\0'))
          + "; a key is text without NUL");
    }
    int bytes = key.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_KEY_BYTES) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "shared memory: key has " + bytes + " bytes as UTF-8; the "
          + "limit is " + MAX_KEY_BYTES);
    }
  }

  /** {@code s} with each unpaired surrogate replaced by U+FFFD, as UTF-8 can hold it; {@code s} itself when none. */
  static String asText(String s) {
    int bad = notText(s);
    if (bad < 0) {
      return s;
    }
    StringBuilder sb = new StringBuilder(s.length()).append(s, 0, bad);
    for (int i = bad; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        sb.append(c).append(s.charAt(++i));
      } else {
        sb.append(Character.isSurrogate(c) ? '\uFFFD' : c);
      }
    }
    return sb.toString();
  }

  /** The index of the first unpaired surrogate in {@code s} (which UTF-8 cannot hold), or -1. */
  private static int notText(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public Item put(Namespace namespace, String owner, String key, String value, Map<String, String> metadata) {
    checkKey(key, false);
    String text = value == null ? "" : redactor.text(value);
    int bad = notText(text);
    if (bad >= 0) {
      // UTF-8 would store a replacement character: the value read back would silently differ.
      throw new LoopflowException(ErrorCode.NODE_FAILED, "shared memory: the value for '" + key + "' contains an "
          + "unpaired surrogate at index " + bad + ", which is not text");
    }
    byte[] raw = text.getBytes(StandardCharsets.UTF_8);
    if (raw.length > MAX_VALUE_BYTES) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "shared memory: the value for '" + key + "' has "
          + raw.length + " bytes; the limit is " + MAX_VALUE_BYTES);
    }
    boolean compress = raw.length > COMPRESS_OVER;
    Instant now = clock.instant();
    Map<String, String> meta = new LinkedHashMap<>();
    meta.put("type", "value");
    if (metadata != null) {
      meta.putAll(redactor.map(metadata));
    }
    meta.put("stored_at", DateTimeFormatter.ISO_INSTANT.format(now.truncatedTo(ChronoUnit.SECONDS)));
    meta.put("full_size", Integer.toString(raw.length));
    meta.put("compressed", compress ? "auto" : "none");
    MemoryEntry e = new MemoryEntry(scope(namespace, owner), namespace.name(), key, compress ? gzip(raw) : raw,
        compress, meta, now);
    store.putMemory(e);
    return new Item(namespace, key, text, e.metadata(), now);
  }

  @Override
  public Item get(Namespace namespace, String owner, String key) {
    return find(namespace, owner, key).orElseThrow(() -> new LoopflowException(
        ErrorCode.SHARED_MEMORY_KEY_NOT_FOUND, "shared memory key not found: " + key + " (namespace "
            + namespace.name().toLowerCase(Locale.ROOT) + ")"));
  }

  @Override
  public Optional<Item> find(Namespace namespace, String owner, String key) {
    checkKey(key, false);
    return store.getMemory(scope(namespace, owner), namespace.name(), key).map(e -> item(namespace, e));
  }

  @Override
  public List<Item> list(Namespace namespace, String owner, String prefix) {
    checkKey(prefix == null ? "" : prefix, true);
    return store.listMemory(scope(namespace, owner), namespace.name(), prefix == null ? "" : prefix).stream()
        .map(e -> item(namespace, e)).toList();
  }

  @Override
  public int delete(Namespace namespace, String owner, String prefix) {
    checkKey(prefix == null ? "" : prefix, true);
    return store.deleteMemory(scope(namespace, owner), namespace.name(), prefix == null ? "" : prefix);
  }

  private static Item item(Namespace ns, MemoryEntry e) {
    byte[] raw = e.compressed() ? gunzip(e.value()) : e.value();
    return new Item(ns, e.key(), new String(raw, StandardCharsets.UTF_8), e.metadata(), e.storedAt());
  }

  static byte[] gzip(byte[] raw) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length / 3 + 64);
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(raw);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // in-memory streams do not fail
    }
    return out.toByteArray();
  }

  static byte[] gunzip(byte[] packed) {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(packed))) {
      byte[] raw = in.readNBytes(MAX_VALUE_BYTES + 1);
      if (raw.length > MAX_VALUE_BYTES) {
        throw new LoopflowException(ErrorCode.NODE_FAILED, "shared memory: a stored value decompresses to more "
            + "than " + MAX_VALUE_BYTES + " bytes");
      }
      return raw;
    } catch (IOException e) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "shared memory: a stored value is not valid gzip data");
    }
  }
}
