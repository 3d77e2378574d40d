package dev.loopflow.core.internal.load;

import dev.loopflow.core.model.Location;
import dev.loopflow.core.model.Problem;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Collects problems; the loader never stops at the first one. */
final class Problems {
  private final List<Problem> list = new ArrayList<>();

  void add(Location at, String path, String message) {
    list.add(new Problem(at, path, message));
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
