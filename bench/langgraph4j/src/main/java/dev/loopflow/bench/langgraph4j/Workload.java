package dev.loopflow.bench.langgraph4j;

/**
 * One of the protocol's workloads, already built (and compiled, where the protocol leaves that untimed) when
 * constructed, so that a repetition measures only what the protocol times.
 */
interface Workload {

  /**
   * Performs one repetition and checks its final state.
   *
   * @param label names the repetition ({@code warmup-0}, {@code rep-0}, ...), for workloads that leave files
   * @throws IllegalStateException when the final state is not what the workload must produce
   */
  Measurement run(String label) throws Exception;

  /**
   * What one repetition measured. {@code iterations} is read from the final state, never assumed;
   * {@code bytes} is negative when the workload writes nothing durable.
   */
  record Measurement(long wallNanos, long iterations, long bytes) {

    static Measurement of(long wallNanos, long iterations) {
      return new Measurement(wallNanos, iterations, -1);
    }
  }

  /** Fails the run with {@code message} unless {@code condition} holds. */
  static void check(boolean condition, String message, Object... args) {
    if (!condition) {
      throw new IllegalStateException("wrong final state: " + message.formatted(args));
    }
  }
}
