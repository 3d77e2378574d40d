/**
 * The side-by-side harness: {@link dev.loopflow.bench.harness.Compare} runs loopflow and its peers (LangGraph4j,
 * LangGraph.js) on the same workloads in one interleaved session and writes the results table; {@link
 * dev.loopflow.bench.harness.LoopflowRunner} is loopflow's side of the runner protocol in bench/PROTOCOL.md.
 */
package dev.loopflow.bench.harness;
