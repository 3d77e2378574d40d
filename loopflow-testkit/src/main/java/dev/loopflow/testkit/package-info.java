/**
 * Test support: fake LLM provider servers, a throwaway PostgreSQL, the run store contract.
 *
 * <p>{@link dev.loopflow.testkit.FakeOpenAiServer}, {@link dev.loopflow.testkit.FakeAnthropicServer} and
 * {@link dev.loopflow.testkit.FakeOllamaServer} are real HTTP servers bound to {@code 127.0.0.1} on a free port.
 * They speak just enough of each provider's wire protocol for production clients to talk to them unmodified,
 * so tests exercise the real serialisation, HTTP and retry code rather than a mocked interface.
 *
 * <p>Every server shares the {@link dev.loopflow.testkit.FakeServer} scripting API: replies are taken from a
 * FIFO queue of {@link dev.loopflow.testkit.Reply} values, then from an optional responder function, then from
 * a default reply. Every request is recorded as a {@link dev.loopflow.testkit.RecordedRequest} in arrival order.
 * Requests are served on virtual threads, so hundreds of concurrent (and deliberately slow) calls are cheap.
 *
 * <p>A {@link dev.loopflow.testkit.Reply.ToolCalls} reply makes the model ask for tools in each provider's own
 * tool-call format, and {@link dev.loopflow.testkit.RecordedRequest#toolNames()} and
 * {@link dev.loopflow.testkit.RecordedRequest#toolResults()} read the tools offered and the results sent back.
 * A request that asks for a stream gets its reply (text and tool calls) in the provider's streaming wire format;
 * {@link dev.loopflow.testkit.Reply.Streamed} sets the piece size, a pause between events and a stream that breaks
 * off, and {@link dev.loopflow.testkit.FakeServer#streamsAbandoned()} counts streams whose client hung up.
 * {@link dev.loopflow.testkit.StdioMcpServer} is a real MCP server process on stdin/stdout (its
 * {@link dev.loopflow.testkit.StdioMcpServer#command() command} starts it in a new JVM) and
 * {@link dev.loopflow.testkit.HttpMcpServer} the same tools over MCP's streamable HTTP transport.
 *
 * <p>{@link dev.loopflow.testkit.PostgresServer} starts a throwaway PostgreSQL cluster from the machine's server
 * binaries; {@link dev.loopflow.testkit.RunStoreContract} is the behaviour every
 * {@link dev.loopflow.core.store.RunStore} must have, as a JUnit suite each implementation's test extends.
 */
package dev.loopflow.testkit;
