package dev.loopflow.bench.server;

/** The two workflows the server benchmark runs; offline, no model or key needed. */
final class Workflows {
  private Workflows() {}

  /**
   * A run that lasts and talks: {@code input.passes} passes, each a shell {@code sleep input.pause} and a Lua counter,
   * so about five journaled events per pass (loop.iteration, node.started and node.completed twice). A
   * {@code while_loop} allows at most 1,000 passes, so two loops nest: an inner one of at most 100 passes inside an
   * outer one, both running while the count is below {@code passes}. Its output is the final state; {@code count}
   * equals {@code passes}.
   */
  static final String TICKER = """
      name: bench-ticker
      input:
        passes: {type: integer, default: 1000}
        pause: {type: string, default: "0.002"}
        count: {type: integer, default: 0}
      limits:
        max_steps: 200000
      nodes:
        - name: outer
          type: while_loop
          max_iterations: 1000
          on_exhausted: continue
          condition: "state.count < input.passes"
          body:
            - name: inner
              type: while_loop
              max_iterations: 100
              on_exhausted: continue
              condition: "state.count < input.passes"
              body:
                - name: tick
                  bash: sleep {{ input.pause }}
                - name: count
                  run: return { count = state.count + 1 }
      edges:
        - {from: __start__, to: outer}
        - {from: outer, to: __end__}
      """;

  /**
   * {@link #TICKER} without its shell node: the same loops and counter as fast as the engine goes, about three
   * journaled events per pass and thousands of events a second. For checks that need a flood rather than a pace.
   */
  static final String BURST = """
      name: bench-burst
      input:
        passes: {type: integer, default: 1000}
        count: {type: integer, default: 0}
      limits:
        max_steps: 200000
      nodes:
        - name: outer
          type: while_loop
          max_iterations: 1000
          on_exhausted: continue
          condition: "state.count < input.passes"
          body:
            - name: inner
              type: while_loop
              max_iterations: 100
              on_exhausted: continue
              condition: "state.count < input.passes"
              body:
                - name: count
                  run: return { count = state.count + 1 }
      edges:
        - {from: __start__, to: outer}
        - {from: outer, to: __end__}
      """;

  /**
   * A short run: a loop of {@link #SHORT_PASSES} Lua passes adding {@code input.seed} each time, so its output is
   * {@code {seed, count: 5, acc: 5 * seed}}: a run that got another run's inputs or state shows it.
   */
  static final String SHORT = """
      name: bench-short
      input:
        seed: {type: integer}
        count: {type: integer, default: 0}
        acc: {type: integer, default: 0}
      nodes:
        - name: passes
          type: while_loop
          max_iterations: 10
          condition: "state.count < 5"
          body:
            - name: step
              run: return { count = state.count + 1, acc = state.acc + input.seed }
      edges:
        - {from: __start__, to: passes}
        - {from: passes, to: __end__}
      """;

  static final int SHORT_PASSES = 5;
}
