package dev.loopflow.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.model.Budget;
import dev.loopflow.core.spi.NodeContext.CallPlan;
import dev.loopflow.core.spi.NodeContext.TokenPrice;
import dev.loopflow.core.spi.Usage;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The budget ledger on its own: reservations raced from many threads at once (released together by a latch), the
 * all-or-none reservation across a run's and its loops' budgets, reply caps, settling and releasing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BudgetsTest {
  private static final NodePosition AT = new NodePosition(List.of(), "a");
  /** gpt-4o-mini's list price: $0.15 and $0.60 per million input and output tokens. */
  private static final TokenPrice PRICE = new TokenPrice(new BigDecimal("0.15"), new BigDecimal("0.60"));

  private static CallPlan plan(long in, Integer out) {
    return new CallPlan("openai", "gpt-4o-mini", in, out, PRICE);
  }

  /** Starts {@code threads} reservations at the same instant; returns those granted (the others were refused). */
  private static List<Budgets.Reservation> race(List<Budgets> chain, CallPlan plan, int threads,
      ConcurrentLinkedQueue<LoopflowException> refusals) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Budgets.Reservation>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        futures.add(pool.submit(() -> {
          go.await();
          try {
            return Budgets.reserve(chain, plan, AT);
          } catch (LoopflowException e) {
            refusals.add(e);
            return null;
          }
        }));
      }
      go.countDown();
      List<Budgets.Reservation> granted = new ArrayList<>();
      for (Future<Budgets.Reservation> f : futures) {
        Budgets.Reservation r = f.get();
        if (r != null) {
          granted.add(r);
        }
      }
      return granted;
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest(name = "max_llm_calls {0}, {1} threads")
  @CsvSource({"0, 8", "1, 8", "2, 8", "2, 64", "7, 32", "31, 64"})
  void concurrentCallsNeverPassMaxLlmCalls_bugNoReservation(int max, int threads) throws Exception {
    for (int round = 0; round < 50; round++) {
      Budgets run = new Budgets(new Budget(null, null, max));
      ConcurrentLinkedQueue<LoopflowException> refusals = new ConcurrentLinkedQueue<>();
      List<Budgets.Reservation> granted = race(List.of(run), plan(10, null), threads, refusals);

      assertThat(granted).hasSize(Math.min(max, threads));
      assertThat(refusals).hasSize(threads - granted.size())
          .allSatisfy(e -> assertThat(e.code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED));
      granted.forEach(r -> r.settle(Usage.ofCall(5, 5, 0.0)));
      assertThat(run.used().llmCalls()).isEqualTo(granted.size());
    }
  }

  @Test
  void concurrentCallsNeverPassMaxTokens_bugNoReservation() throws Exception {
    // Each call reserves its prompt bound (100) plus its reply limit (400).
    for (int round = 0; round < 50; round++) {
      Budgets run = new Budgets(new Budget(null, 1200L, null));
      List<Budgets.Reservation> granted = race(List.of(run), plan(100, 400), 16, new ConcurrentLinkedQueue<>());
      // The third call finds 200 left: room for its prompt and a reply cut to 100 tokens; then nothing is left.
      assertThat(granted).hasSize(3);
      assertThat(granted).extracting(Budgets.Reservation::maxOutputTokens).containsExactlyInAnyOrder(400, 400, 100);
      granted.forEach(r -> assertThat(r.settle(Usage.ofCall(100, r.maxOutputTokens(), 0.0))).isNull());
      assertThat(run.used().totalTokens()).isEqualTo(1200);
    }
  }

  @Test
  void concurrentCallsNeverPassMaxUsd_bugNoReservation() throws Exception {
    // A call reserves 100 prompt tokens ($0.000015) and 400 reply tokens ($0.00024): $0.000255.
    for (int round = 0; round < 50; round++) {
      Budgets run = new Budgets(new Budget(0.000520, null, null));
      List<Budgets.Reservation> granted = race(List.of(run), plan(100, 400), 16, new ConcurrentLinkedQueue<>());
      // Two full reservations leave $0.00001, less than the third prompt's $0.000015.
      assertThat(granted).hasSize(2);
      granted.forEach(r -> assertThat(r.settle(Usage.ofCall(100, 400, 0.000255))).isNull());
      assertThat(run.used().costUsd()).isLessThanOrEqualTo(0.000520);
    }
  }

  @Test
  void aCallIsReservedInTheRunsAndEveryLoopsBudgetOrInNone() throws Exception {
    for (int round = 0; round < 50; round++) {
      Budgets run = new Budgets(new Budget(null, null, 5));
      Budgets loopA = run.forLoop(new Budget(null, null, 2), "loop_group 'a'");
      Budgets loopB = run.forLoop(new Budget(null, null, 10), "loop_group 'b'");
      ConcurrentLinkedQueue<LoopflowException> refusedInA = new ConcurrentLinkedQueue<>();
      List<Budgets.Reservation> inA = race(List.of(run, loopA), plan(1, null), 16, refusedInA);
      assertThat(inA).hasSize(2);
      assertThat(refusedInA).allSatisfy(e -> assertThat(e.getMessage()).contains("loop_group 'a'"));
      // Refusals in loop a held nothing in the run's budget: three calls are left for loop b.
      List<Budgets.Reservation> inB = race(List.of(run, loopB), plan(1, null), 16, new ConcurrentLinkedQueue<>());
      assertThat(inB).hasSize(3);
      assertThat(run.used().llmCalls()).isZero();
      inA.forEach(r -> r.settle(Usage.ofCall(1, 1, 0.0)));
      inB.forEach(Budgets.Reservation::release);
      assertThat(run.used().llmCalls()).isEqualTo(5);
      assertThat(loopA.used().llmCalls()).isEqualTo(2);
      assertThat(loopB.used().llmCalls()).isEqualTo(3);
    }
  }

  @Test
  void withoutTokenOrCostLimitsTheRequestKeepsItsOwnReplyLimit() {
    Budgets run = new Budgets(new Budget(null, null, 3));
    assertThat(Budgets.reserve(List.of(run), plan(10, null), AT).maxOutputTokens()).isNull();
    assertThat(Budgets.reserve(List.of(run), plan(10, 700), AT).maxOutputTokens()).isEqualTo(700);
  }

  @Test
  void underATokenLimitACallWithoutReplyLimitGetsTheDefaultCappedToWhatIsLeft() {
    Budgets big = new Budgets(new Budget(null, 1_000_000L, null));
    assertThat(Budgets.reserve(List.of(big), plan(10, null), AT).maxOutputTokens())
        .isEqualTo(Budgets.DEFAULT_REPLY_TOKENS);
    Budgets small = new Budgets(new Budget(null, 300L, null));
    assertThat(Budgets.reserve(List.of(small), plan(100, null), AT).maxOutputTokens()).isEqualTo(200);
  }

  @Test
  void underACostLimitTheReplyIsCappedToWhatTheMoneyLeftBuys() {
    // $0.0001 left after a 100-token prompt ($0.000015) buys 141 reply tokens at $0.60 per million.
    Budgets run = new Budgets(new Budget(0.0001, null, null));
    assertThat(Budgets.reserve(List.of(run), plan(100, 1000), AT).maxOutputTokens()).isEqualTo(141);
  }

  @Test
  void aPromptThatCannotFitIsRefusedBeforeAnythingIsReserved() {
    Budgets run = new Budgets(new Budget(null, 100L, null));
    assertThatThrownBy(() -> Budgets.reserve(List.of(run), plan(100, 10), AT))
        .isInstanceOfSatisfying(LoopflowException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED);
          assertThat(e.getMessage()).contains("max_tokens 100 would be passed").contains("up to 100 tokens")
              .contains("'a' was not made");
        });
    assertThat(Budgets.reserve(List.of(run), plan(99, 10), AT).maxOutputTokens()).isEqualTo(1);
  }

  @Test
  void aModelWithoutPriceIsRefusedUnderMaxUsdOnly() {
    CallPlan unpriced = new CallPlan("ollama", "llama3.2", 10, null, null);
    Budgets calls = new Budgets(new Budget(null, null, 5));
    Budgets.reserve(List.of(calls), unpriced, AT).release();
    Budgets loop = calls.forLoop(new Budget(1.0, null, null), "iterator 'each'");
    assertThatThrownBy(() -> Budgets.reserve(List.of(calls, loop), unpriced, AT))
        .isInstanceOfSatisfying(LoopflowException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.NODE_FAILED);
          assertThat(e.getMessage()).contains("'ollama:llama3.2' has no known price")
              .contains("the budget of iterator 'each'").contains("prices:");
        });
    assertThat(calls.used().llmCalls()).isEqualTo(1);
  }

  @Test
  void aSettledCallBeyondItsReservationThatPassesTheLimitIsReported() {
    Budgets run = new Budgets(new Budget(null, 1000L, null));
    Budgets.Reservation within = Budgets.reserve(List.of(run), plan(100, 300), AT);
    assertThat(within.settle(Usage.ofCall(100, 300, 0.0))).isNull();
    // The provider ignored max_tokens, but the total stays within the limit: nothing to report.
    Budgets.Reservation over = Budgets.reserve(List.of(run), plan(100, 100), AT);
    assertThat(over.settle(Usage.ofCall(100, 400, 0.0))).isNull();
    Budgets.Reservation past = Budgets.reserve(List.of(run), plan(10, 50), AT);
    LoopflowException e = past.settle(Usage.ofCall(10, 200, 0.0));
    assertThat(e).isNotNull();
    assertThat(e.code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED);
    assertThat(e.getMessage()).contains("max_tokens 1000 passed (1110 tokens used)").contains("used 210 tokens")
        .contains("60 reserved");
    assertThat(run.used().totalTokens()).isEqualTo(1110);
    assertThatThrownBy(() -> Budgets.reserve(List.of(run), plan(1, 1), AT)).hasMessageContaining("reached");
  }

  @Test
  void aCallAnsweredWithAnErrorCountsAsACallButFreesItsTokens() {
    Budgets run = new Budgets(new Budget(0.01, 1000L, 2));
    Budgets.Reservation r = Budgets.reserve(List.of(run), plan(100, 800), AT);
    assertThatThrownBy(() -> Budgets.reserve(List.of(run), plan(100, 800), AT))
        .hasMessageContaining("reserved by calls under way");
    r.release();
    r.release(); // ending twice is harmless
    assertThat(run.used()).isEqualTo(new Usage(0, 0, 0.0, 1, 0));
    Budgets.Reservation again = Budgets.reserve(List.of(run), plan(100, 800), AT);
    assertThat(again.maxOutputTokens()).isEqualTo(800);
    again.settle(Usage.ofCall(100, 10, 0.00001));
    again.release(); // after settle: nothing
    assertThat(run.used().llmCalls()).isEqualTo(2);
    assertThatThrownBy(() -> Budgets.reserve(List.of(run), plan(1, 1), AT))
        .hasMessageContaining("max_llm_calls 2 reached (2 calls made)");
  }

  @Test
  void aCallWithUnknownUsageCountsAtItsWholeReservationAndAnUnsentOneNotAtAll() {
    Budgets run = new Budgets(new Budget(0.01, 1000L, 3));
    Budgets.Reservation timedOut = Budgets.reserve(List.of(run), plan(100, 300), AT);
    assertThat(timedOut.charge()).isEqualTo(Usage.ofCall(100, 300, 0.000195));
    assertThat(timedOut.charge()).isNull();
    Budgets.Reservation unsent = Budgets.reserve(List.of(run), plan(100, 300), AT);
    unsent.cancel();
    assertThat(run.used()).isEqualTo(Usage.ofCall(100, 300, 0.000195));
    // What is left after the charge: 600 tokens, so a 100-token prompt gets a reply of at most 500.
    assertThat(Budgets.reserve(List.of(run), plan(100, null), AT).maxOutputTokens()).isEqualTo(500);
  }

  @Test
  void withoutTokenOrCostLimitsACallWithUnknownUsageCountsAsACallOnly() {
    Budgets run = new Budgets(new Budget(null, null, 3));
    assertThat(Budgets.reserve(List.of(run), plan(100, 300), AT).charge()).isEqualTo(Usage.ofCall(0, 0, 0.0));
  }

  @Test
  void spendingRestoredOnResumeCountsBeforeAnyNewCall() {
    Budgets run = new Budgets(new Budget(null, null, 3));
    run.add(new Usage(10, 10, null, 3, 3));
    assertThatThrownBy(() -> Budgets.reserve(List.of(run), plan(1, null), AT))
        .hasMessageContaining("max_llm_calls 3 reached (3 calls made)");
  }
}
