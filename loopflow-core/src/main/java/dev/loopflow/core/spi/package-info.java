/**
 * The open extension point for work nodes. A {@link dev.loopflow.core.spi.NodeHandler} validates and compiles
 * one node kind's configuration at load time into a {@link dev.loopflow.core.spi.NodeProgram}; at run time the
 * program gets a narrow {@link dev.loopflow.core.spi.NodeContext} (its scope, cancellation, LLM accounting,
 * sessions) and returns a {@link dev.loopflow.core.spi.NodeOutcome}. Programs never see the scheduler: they
 * cannot start nodes, change other nodes' results or alter the graph. Handlers are found with
 * {@link java.util.ServiceLoader} or registered on the {@link dev.loopflow.core.Loopflow} builder.
 */
package dev.loopflow.core.spi;
