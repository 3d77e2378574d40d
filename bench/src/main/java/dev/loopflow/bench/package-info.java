/**
 * JMH benchmarks for loopflow's hot paths, each measured against a well-known baseline on the same inputs. The
 * build only compiles and packages them into {@code bench/target/benchmarks.jar}; see {@code bench/README.md} for
 * how to run them, and {@code docs/benchmarks.md} for recorded results.
 */
package dev.loopflow.bench;
