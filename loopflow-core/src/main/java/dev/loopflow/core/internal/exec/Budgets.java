package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.spi.NodeContext.CallPlan;
import dev.loopflow.core.spi.NodeContext.TokenPrice;
import dev.loopflow.core.spi.Usage;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One budget (the run's, or one loop execution's) and what has been spent and reserved against it.
 *
 * <p>What must stay true: a call is reserved in every budget of its chain, all or none, under one lock shared by
 * every budget of the run, before its request is sent; so for each budget, calls made plus calls under way never
 * pass {@code max_llm_calls}, and the tokens and dollars spent plus those reserved never pass {@code max_tokens} and
 * {@code max_usd}, whatever the concurrency. A reservation holds the prompt's upper bound plus the reply limit the
 * request is sent with; only a provider that reports more than that can push a total past its limit, and then the
 * call that did so fails with {@code budget_exceeded} (see {@link Reservation#settle}). Every reservation ends as
 * the call did: settled to its reported usage, released (an error answer: a call, no tokens), charged (sent, usage
 * unknown: the whole reservation counts) or cancelled (never sent: nothing counts). What is recorded is
 * {@link Usage}, which each execution journals, so a resumed run counts the same.
 */
final class Budgets {
  /**
   * The reply limit reserved, and sent as the request's max_tokens, for a call that sets none when a token or cost
   * budget applies to it: a reply with no limit could pass any budget.
   */
  static final int DEFAULT_REPLY_TOKENS = 4096;

  private final Budget budget;
  private final String owner;
  /** Shared by all budgets of one run, so a reservation across a chain of them is one atomic step. */
  private final Object lock;
  private Usage used = Usage.NONE;
  private BigDecimal spentUsd = BigDecimal.ZERO;
  private int callsHeld;
  /** The reservations not ended yet, in this budget (kept for the run's budget only; see {@link #usedAtEnd}). */
  private final Set<Reservation> underWay;
  private long tokensHeld;
  private BigDecimal usdHeld = BigDecimal.ZERO;
  /**
   * For a child run's budget (a workflow run as a tool): the budget chain of the node that started it, which every
   * call of the child is also reserved in, under the same lock. Empty for a run nobody started.
   */
  private final List<Budgets> above;

  /** The run's budget. */
  Budgets(Budget budget) {
    this(budget, null, new Object(), List.of());
  }

  /**
   * The budget of a child run started by a node whose budget chain is {@code above}: the child's calls count in
   * that chain too, before they are made, so a child gets at most what its caller has left.
   */
  Budgets(Budget budget, List<Budgets> above) {
    this(budget, null, above.isEmpty() ? new Object() : above.get(0).lock, List.copyOf(above));
  }

  private Budgets(Budget budget, String owner, Object lock, List<Budgets> above) {
    this.budget = budget;
    this.owner = owner;
    this.lock = lock;
    this.underWay = owner == null ? new HashSet<>() : null;
    this.above = above;
  }

  /** A loop execution's budget in this run; {@code owner} names the loop in errors. */
  Budgets forLoop(Budget loopBudget, String loopOwner) {
    return new Budgets(loopBudget, loopOwner, lock, List.of());
  }

  /** Counts usage spent outside a reservation: what an earlier attempt of a resumed run journaled. */
  void add(Usage u) {
    synchronized (lock) {
      record(u);
    }
  }

  /** What was spent: settled and released calls, never reservations. */
  Usage used() {
    synchronized (lock) {
      return used;
    }
  }

  /**
   * What was spent when the run ends: every ended call, and every call still under way at its whole reservation
   * (its request may have been sent: a node its timeout gave up on still waits for its answer). Those calls' own
   * ends come after the run's record is written, and a resume counts them the same way from the journal.
   */
  Usage usedAtEnd() {
    synchronized (lock) {
      Usage u = used;
      if (underWay != null) {
        for (Reservation r : underWay) {
          u = u.plus(r.whenCharged());
        }
      }
      return u;
    }
  }

  private void record(Usage u) {
    used = used.plus(u);
    if (u.costUsd() != null) {
      spentUsd = spentUsd.add(BigDecimal.valueOf(u.costUsd()));
    }
  }

  /**
   * Reserves one call of {@code plan} in every budget of {@code chain} (the run's first), or in none: throws
   * {@code budget_exceeded} naming the first budget that cannot hold it.
   */
  static Reservation reserve(List<Budgets> own, CallPlan plan, NodePosition at) {
    List<Budgets> chain = withCallers(own);
    synchronized (chain.get(0).lock) {
      boolean limitsTokens = false;
      Budgets usdBudget = null;
      for (Budgets b : chain) {
        limitsTokens |= b.budget.maxTokens() != null;
        if (usdBudget == null && b.budget.maxUsd() != null) {
          usdBudget = b;
        }
      }
      TokenPrice price = plan.price();
      if (usdBudget != null && price == null) {
        throw new LoopflowException(ErrorCode.NODE_FAILED, "model '" + plan.provider() + ":" + plan.model()
            + "' has no known price, so the max_usd of " + usdBudget.name() + " cannot count its calls; the call "
            + "was not made; give it a price in USD per million tokens in the workflow's prices section, e.g. "
            + "prices: {" + plan.provider() + ": {\"" + plan.model() + "\": {input: <USD>, output: <USD>}}}", at);
      }
      long in = plan.maxInputTokens();
      boolean capped = limitsTokens || usdBudget != null;
      long reply = plan.maxOutputTokens() != null ? plan.maxOutputTokens() : capped ? DEFAULT_REPLY_TOKENS : 0;
      for (Budgets b : chain) {
        reply = Math.min(reply, b.replyRoom(in, price, at));
      }
      long heldIn = capped ? in : 0;
      long heldOut = capped ? reply : 0;
      BigDecimal usd = capped && price != null ? price.costAtMost(in, reply) : BigDecimal.ZERO;
      for (Budgets b : chain) {
        b.callsHeld++;
        b.tokensHeld += heldIn + heldOut;
        b.usdHeld = b.usdHeld.add(usd);
      }
      Integer cap = plan.maxOutputTokens() != null || capped ? Integer.valueOf((int) reply) : null;
      Reservation r = new Reservation(List.copyOf(chain), heldIn, heldOut, usd, cap, price != null, at);
      for (Budgets b : chain) {
        if (b.underWay != null) {
          b.underWay.add(r);
        }
      }
      return r;
    }
  }

  /** {@code chain} preceded by the chains of the nodes that started its run, outermost first. */
  private static List<Budgets> withCallers(List<Budgets> chain) {
    List<Budgets> above = chain.get(0).above;
    if (above.isEmpty()) {
      return chain;
    }
    List<Budgets> all = new ArrayList<>(withCallers(above));
    all.addAll(chain);
    return all;
  }

  /**
   * Checks that this budget has room for one more call whose prompt takes up to {@code in} tokens, and returns how
   * many reply tokens it leaves room for (Long.MAX_VALUE when it limits neither tokens nor cost). Call with the
   * lock held.
   */
  private long replyRoom(long in, TokenPrice price, NodePosition at) {
    if (budget.maxLlmCalls() != null && used.llmCalls() + callsHeld + 1 > budget.maxLlmCalls()) {
      throw exceeded("max_llm_calls " + budget.maxLlmCalls() + " reached (" + calls(used.llmCalls(), callsHeld)
          + ")", at);
    }
    long room = Long.MAX_VALUE;
    if (budget.maxTokens() != null) {
      long left = budget.maxTokens() - used.totalTokens() - tokensHeld;
      if (left <= 0) {
        throw exceeded("max_tokens " + budget.maxTokens() + " reached (" + used.totalTokens() + " tokens used"
            + (tokensHeld > 0 ? ", " + tokensHeld + " reserved by calls under way" : "") + ")", at);
      }
      if (left < in + 1) {
        throw exceeded("max_tokens " + budget.maxTokens() + " would be passed: " + used.totalTokens()
            + " tokens used" + (tokensHeld > 0 ? " and " + tokensHeld + " reserved by calls under way" : "")
            + " leave " + left + ", and this call's prompt may take up to " + in + " tokens plus its reply", at);
      }
      room = left - in;
    }
    if (budget.maxUsd() != null) {
      BigDecimal max = BigDecimal.valueOf(budget.maxUsd());
      BigDecimal left = max.subtract(spentUsd).subtract(usdHeld);
      if (left.signum() <= 0) {
        throw exceeded(String.format(Locale.ROOT, "max_usd %.4f reached ($%.4f spent%s)", budget.maxUsd(),
            spentUsd, usdHeld.signum() > 0 ? String.format(Locale.ROOT, ", $%.6f reserved by calls under way",
                usdHeld) : ""), at);
      }
      BigDecimal prompt = price.costAtMost(in, 0);
      BigDecimal perReplyToken = price.cost(0, 1);
      if (left.compareTo(prompt.add(perReplyToken)) < 0) {
        throw exceeded(String.format(Locale.ROOT, "max_usd %.4f would be passed: $%.6f spent%s leave $%.6f, and "
            + "this call's prompt may cost up to $%.6f plus its reply", budget.maxUsd(), spentUsd,
            usdHeld.signum() > 0 ? String.format(Locale.ROOT, " and $%.6f reserved by calls under way", usdHeld) : "",
            left, prompt), at);
      }
      if (perReplyToken.signum() > 0) {
        BigDecimal tokens = left.subtract(prompt).divide(perReplyToken, 0, RoundingMode.FLOOR);
        room = Math.min(room, tokens.min(BigDecimal.valueOf(Long.MAX_VALUE)).longValue());
      }
    }
    return room;
  }

  private static String calls(int made, int underWay) {
    String s = made + (made == 1 ? " call" : " calls") + " made";
    return underWay == 0 ? s : s + ", " + underWay + " under way";
  }

  private String name() {
    return owner == null ? "the run's budget" : "the budget of " + owner;
  }

  private LoopflowException exceeded(String what, NodePosition at) {
    return new LoopflowException(ErrorCode.BUDGET_EXCEEDED, (owner == null ? "budget exceeded: " : "budget of "
        + owner + " exceeded: ") + what + "; the next LLM call in '" + at.path() + "' was not made", at);
  }

  /**
   * One reserved call in every budget of its chain. Thread-safe; ended once, by {@link #settle}, {@link #release},
   * {@link #charge} or {@link #cancel}; later calls to any of them but settle do nothing.
   */
  static final class Reservation {
    private final List<Budgets> chain;
    private final long inputTokens;
    private final long outputTokens;
    private final BigDecimal usd;
    private final Integer maxOutputTokens;
    private final boolean priced;
    private final NodePosition at;
    private boolean ended;

    private Reservation(List<Budgets> chain, long inputTokens, long outputTokens, BigDecimal usd,
        Integer maxOutputTokens, boolean priced, NodePosition at) {
      this.chain = chain;
      this.inputTokens = inputTokens;
      this.outputTokens = outputTokens;
      this.usd = usd;
      this.maxOutputTokens = maxOutputTokens;
      this.priced = priced;
      this.at = at;
    }

    /** The reply limit the request must carry; null when it may go out without one. */
    Integer maxOutputTokens() {
      return maxOutputTokens;
    }

    /**
     * Replaces the reservation with the call's usage in every budget. Returns the error to fail the call with when
     * it used more than was reserved and that left a budget's spending plus its other reservations past the
     * limit, else null.
     */
    LoopflowException settle(Usage u) {
      synchronized (chain.get(0).lock) {
        if (ended) {
          throw new IllegalStateException("this LLM call was already ended");
        }
        ended = true;
        for (Budgets b : chain) {
          b.unhold(this, inputTokens + outputTokens, usd);
          b.record(u);
        }
        for (Budgets b : chain) {
          LoopflowException over = b.overshoot(u, inputTokens + outputTokens, usd, at);
          if (over != null) {
            return over;
          }
        }
        return null;
      }
    }

    /** A call the provider answered with an error: it counts as a call, with no tokens. */
    Usage release() {
      return end(Usage.ofCall(0, 0, priced ? Double.valueOf(0.0) : null));
    }

    /**
     * A call whose request was sent but whose usage is unknown (timed out, cancelled while waiting, unreadable
     * answer): the provider may have processed and billed it, so it counts at its whole reservation.
     */
    Usage charge() {
      return end(whenCharged());
    }

    /** What {@link #charge} would count: journaled before the request is sent, for a resume to count it. */
    Usage whenCharged() {
      return Usage.ofCall(inputTokens, outputTokens, priced ? Double.valueOf(usd.doubleValue()) : null);
    }

    /** A call whose request was never sent: nothing counts. */
    void cancel() {
      end(null);
    }

    /** Cancels the call as {@link #cancel} does; true when this ended it (it had not ended). */
    boolean cancelled() {
      synchronized (chain.get(0).lock) {
        if (ended) {
          return false;
        }
        end(null);
        return true;
      }
    }

    /** Ends the reservation with {@code u} (null: nothing) unless it has ended; returns what was counted. */
    private Usage end(Usage u) {
      synchronized (chain.get(0).lock) {
        if (ended) {
          return null;
        }
        ended = true;
        for (Budgets b : chain) {
          b.unhold(this, inputTokens + outputTokens, usd);
          if (u != null) {
            b.record(u);
          }
        }
        return u;
      }
    }
  }

  private void unhold(Reservation r, long tokens, BigDecimal usd) {
    if (underWay != null) {
      underWay.remove(r);
    }
    callsHeld--;
    tokensHeld -= tokens;
    usdHeld = usdHeld.subtract(usd);
  }

  /** Whether a settled call that went past its reservation left this budget past a limit. Lock held. */
  private LoopflowException overshoot(Usage u, long reservedTokens, BigDecimal reservedUsd, NodePosition at) {
    if (budget.maxTokens() != null && u.totalTokens() > reservedTokens
        && used.totalTokens() + tokensHeld > budget.maxTokens()) {
      return passed("max_tokens " + budget.maxTokens() + " passed (" + used.totalTokens() + " tokens used): the call "
          + "in '" + at.path() + "' used " + u.totalTokens() + " tokens, more than the " + reservedTokens
          + " reserved for it (its prompt's upper bound plus the max_tokens it was sent with)", at);
    }
    BigDecimal cost = u.costUsd() == null ? BigDecimal.ZERO : BigDecimal.valueOf(u.costUsd());
    if (budget.maxUsd() != null && cost.compareTo(reservedUsd) > 0
        && spentUsd.add(usdHeld).compareTo(BigDecimal.valueOf(budget.maxUsd())) > 0) {
      return passed(String.format(Locale.ROOT, "max_usd %.4f passed ($%.6f spent): the call in '%s' cost $%.6f, "
          + "more than the $%.6f reserved for it (its prompt's upper bound plus the max_tokens it was sent with)",
          budget.maxUsd(), spentUsd, at.path(), cost, reservedUsd), at);
    }
    return null;
  }

  private LoopflowException passed(String what, NodePosition at) {
    return new LoopflowException(ErrorCode.BUDGET_EXCEEDED, (owner == null ? "budget exceeded: " : "budget of "
        + owner + " exceeded: ") + what, at);
  }
}
