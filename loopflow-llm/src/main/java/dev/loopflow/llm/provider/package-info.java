/**
 * The provider-neutral chat API that LLM nodes call, and its OpenAI, Anthropic and Ollama implementations.
 *
 * <p>A node describes what it wants as a {@link dev.loopflow.llm.provider.ChatCall} (model, system prompt,
 * {@link dev.loopflow.llm.provider.ChatMessage}s, temperature, token cap, optional JSON Schema for structured
 * output, timeout) and sends it through a {@link dev.loopflow.llm.provider.ChatClient}, receiving a
 * {@link dev.loopflow.llm.provider.ChatReply} (text, token usage, answering model, provider, attempts) or a
 * {@link dev.loopflow.llm.provider.ProviderException} whose {@link dev.loopflow.llm.provider.ProviderException.Kind}
 * says why. {@link dev.loopflow.llm.provider.Pricing} turns the usage into cost.
 *
 * <p>{@link dev.loopflow.llm.provider.Providers} builds clients from
 * {@link dev.loopflow.llm.provider.ProviderSettings} (provider, base URL, API key, timeout,
 * {@link dev.loopflow.llm.provider.RetryPolicy}), which can be read from the conventional environment variables.
 * A client serves any model of its endpoint and is safe to share between threads.
 *
 * <p>Blocking calls to {@code openai} (and every OpenAI-compatible server) go through
 * {@link dev.loopflow.llm.provider.OpenAiDirect}: the JDK's HTTP client with the body written and read by Jackson's
 * streaming API ({@link dev.loopflow.llm.provider.OpenAiWire}), sending what LangChain4j's {@code OpenAiChatModel}
 * sends and reading replies as it reads them (any irregular reply is handed to LangChain4j's own reading).
 * {@link dev.loopflow.llm.provider.Providers} is the one place that decides this. Every other call (streamed
 * OpenAI calls, Anthropic, Ollama) goes through LangChain4j's models. A whole answer is read up to 16 MiB; a larger
 * one is an unreadable reply.
 *
 * <p>The wire protocols are LangChain4j's, with two changes: LangChain4j's retries are off and this package
 * retries instead (uniform classification across providers, {@code Retry-After} honoured, attempts reported),
 * and HTTP goes through our own implementation of LangChain4j's HTTP client SPI so that error responses keep
 * their headers and each call can carry its own timeout. Structured output uses each provider's native
 * mechanism: OpenAI {@code response_format} of type {@code json_schema}, Anthropic {@code output_config}
 * (object schemas get {@code additionalProperties: false}, which Anthropic requires), Ollama {@code format}.
 */
package dev.loopflow.llm.provider;
