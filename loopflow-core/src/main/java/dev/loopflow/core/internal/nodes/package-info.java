/**
 * The work nodes built into the core: shell, script (sandboxed Lua in-process; Python and Node as
 * subprocesses), transform, validator and http. Each is a stateless {@link dev.loopflow.core.spi.NodeHandler}.
 */
package dev.loopflow.core.internal.nodes;
