package dev.loopflow.llm.provider;

import java.util.Objects;

/**
 * A tool call a model asked for in its reply.
 *
 * @param id        the provider's id for the call, which the tool's result must carry back; never blank (a provider
 *                  that gives none, such as Ollama, gets one made up from the call's position)
 * @param name      the tool's name as the model wrote it; it may name no tool at all
 * @param arguments the arguments as the model wrote them, normally a JSON object; it may be anything
 */
public record ToolCall(String id, String name, String arguments) {

    public ToolCall {
        Objects.requireNonNull(id, "id must not be null");
        name = name == null ? "" : name;
        arguments = arguments == null ? "" : arguments;
    }
}
