package dev.loopflow.core.internal.load;

import dev.loopflow.core.model.Location;
import dev.loopflow.core.model.Problem;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Collects problems; the loader never stops at the first one. A value the YAML reader could not give (an alias
 * without its anchor, an alias bomb) is reported once, by the reader: what the loader would say next about the
 * placeholder at the same position ("expected a node, found null") is a consequence, and is left out.
 */
final class Problems {
  private final List<Problem> list = new ArrayList<>();
  private final Set<Location> unreadable = new HashSet<>();

  void add(Location at, String path, String message) {
    if (!unreadable.contains(at)) {
      list.add(new Problem(at, path, message));
    }
  }

  /** A problem of the YAML reader: the value at {@code at} stands for nothing, so nothing more is said about it. */
  void addUnreadable(Location at, String path, String message) {
    list.add(new Problem(at, path, message));
    unreadable.add(at);
  }

  List<Problem> list() {
    return list;
  }

  boolean isEmpty() {
    return list.isEmpty();
  }

  int size() {
    return list.size();
  }

  List<Problem> sorted() {
    List<Problem> out = new ArrayList<>(list);
    out.sort(Comparator.comparingInt((Problem p) -> p.location().line()).thenComparingInt(p -> p.location().column()));
    return out;
  }
}
