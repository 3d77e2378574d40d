/**
 * Containing what loopflow starts as an operating-system process: shell nodes, Python and Node script nodes, a
 * loop's {@code until_command}/{@code until_bash}, and the agent's shell tool.
 *
 * <p>A node's {@link dev.loopflow.core.sandbox.SandboxPolicy} says what its processes may do ({@code off},
 * {@code workspace}, {@code strict}, or a map); the run's {@link dev.loopflow.core.sandbox.SandboxMode} says whether
 * the policy is enforced ({@code auto}: where bubblewrap works; {@code required}: always, or the node does not start;
 * {@code off}). {@link dev.loopflow.core.sandbox.ProcessSandbox} starts a node's process under both and says how it
 * ran, which the node writes into its result.
 *
 * <p>What must stay true: every process of a contained node lives in its own PID namespace, so nothing it started
 * outlives it (its end, a timeout, a cancel, or the engine's own death); the filesystem is read-only except the
 * node's working directory, {@code /tmp} and the paths the policy adds; the run store, loopflow's home and the usual
 * credential stores read as empty. The loader's refusal of values in shell-code contexts does not depend on the
 * sandbox: the sandbox limits the damage of what the loader misses and of code a model wrote.
 */
package dev.loopflow.core.sandbox;
