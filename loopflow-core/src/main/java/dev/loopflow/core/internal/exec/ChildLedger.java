package dev.loopflow.core.internal.exec;

import dev.loopflow.core.spi.Usage;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * What a child run (a workflow run as a tool) owes the node that started it: its LLM calls are reserved in the
 * caller's budget chain before they are made, what they spent is added to the caller's usage, and every child run
 * of one tree of runs counts against one tally, so a cap on child runs holds however deep they nest.
 */
public final class ChildLedger {
  final List<Budgets> budgets;
  final AtomicInteger childRuns;
  private final Consumer<Usage> spent;

  ChildLedger(List<Budgets> budgets, AtomicInteger childRuns, Consumer<Usage> spent) {
    this.budgets = List.copyOf(budgets);
    this.childRuns = childRuns;
    this.spent = spent;
  }

  /**
   * Takes one child run from the tree's tally when fewer than {@code max} were started; false when the cap is
   * reached (nothing is taken then).
   */
  public boolean take(int max) {
    while (true) {
      int n = childRuns.get();
      if (n >= max) {
        return false;
      }
      if (childRuns.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** How many child runs the tree has started. */
  public int started() {
    return childRuns.get();
  }

  /** Adds what a child run spent to the calling execution's usage (its budgets counted it already). */
  public void spent(Usage u) {
    if (u != null) {
      spent.accept(u);
    }
  }
}
