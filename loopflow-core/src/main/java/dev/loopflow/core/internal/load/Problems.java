package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.error.Names;
import dev.loopflow.core.error.Problem;
import java.util.ArrayList;
import java.util.Collection;
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
  /**
   * Work left for "did you mean" hints in this load, in character comparisons. A hint compares a name with every
   * candidate, so hints for every one of many unknown names among many ids would make loading quadratic (20,000
   * unknown references took minutes); past the budget, problems are still reported, without a hint.
   */
  private long suggestionBudget = 50_000_000L;

  /** {@link Names#suggest} while the budget lasts, else "". */
  String suggest(String word, Collection<String> candidates) {
    String c = closest(word, candidates);
    return c == null ? "" : Names.suggest(word, List.of(c));
  }

  /** {@link Names#closest} while the budget lasts, else null. */
  String closest(String word, Collection<String> candidates) {
    if (!maySuggest(candidates.size())) {
      return null;
    }
    long cost = candidates.size();
    for (String c : candidates) {
      if (Math.abs(c.length() - word.length()) <= 3) {
        cost += (long) (word.length() + 1) * (c.length() + 1);
      }
    }
    if (cost > suggestionBudget) {
      suggestionBudget -= candidates.size();
      return null;
    }
    suggestionBudget -= cost;
    return Names.closest(word, candidates);
  }

  /** Whether a hint among {@code candidates} names may still be looked for (checked before making the list). */
  boolean maySuggest(int candidates) {
    return candidates <= suggestionBudget;
  }

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
