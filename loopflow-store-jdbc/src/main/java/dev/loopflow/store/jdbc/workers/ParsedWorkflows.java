package dev.loopflow.store.jdbc.workers;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The workflows a worker has parsed, by their exact source and file name, most recently used kept.
 *
 * <p>Why: every run a worker takes is a resume from the journal, and parsing and validating its workflow was the
 * largest part of a short run's cost on the worker. Queued runs are mostly many runs of few workflows. What must stay
 * true: a cached plan is only ever returned for the very same source text and file name it was parsed from (a
 * {@link Workflow} is immutable, so sharing one between runs is safe), and the cache is bounded.
 */
final class ParsedWorkflows {
  static final int CAPACITY = 32;

  private record Key(String source, String file) {}

  private final Loopflow engine;
  private final Map<Key, Workflow> recent = new LinkedHashMap<>(CAPACITY * 2, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Key, Workflow> eldest) {
      return size() > CAPACITY;
    }
  };

  ParsedWorkflows(Loopflow engine) {
    this.engine = engine;
  }

  /** The workflow of {@code source}, parsed once; an invalid source throws as {@link Loopflow#parse} does. */
  Workflow parse(String source, String file) {
    Key key = new Key(Objects.requireNonNull(source, "source"), file);
    synchronized (recent) {
      Workflow wf = recent.get(key);
      if (wf != null) {
        return wf;
      }
    }
    // Parsed outside the lock: two threads may parse the same source once each, which is harmless.
    Workflow wf = engine.parse(source, file);
    synchronized (recent) {
      recent.put(key, wf);
    }
    return wf;
  }

  int size() {
    synchronized (recent) {
      return recent.size();
    }
  }
}
