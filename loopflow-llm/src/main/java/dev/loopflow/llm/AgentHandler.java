package dev.loopflow.llm;

import dev.loopflow.core.sandbox.SandboxPolicy;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.llm.internal.tools.ToolSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code agent}: an LLM that may call tools until it answers. It takes every field of {@code llm} plus
 * {@code tools} (built-in tools), {@code mcp} (MCP servers whose tools it offers too) and {@code max_turns} (model
 * calls at most, default 10, 1..100), and {@code output_schema_on} (when the requests carry {@code output_schema}:
 * {@code final}, the default, or {@code every_turn}). Its result is an llm node's plus {@code tool_calls} (each call's
 * {@code name}, {@code arguments}, {@code result} or {@code error}, and {@code turn}) and {@code turns}.
 */
public final class AgentHandler implements NodeHandler {
  static final int DEFAULT_MAX_TURNS = 10;
  static final int MAX_TURNS_LIMIT = 100;
  private static final FieldSpec MAX_TURNS = FieldSpec.integer("max_turns", 1, MAX_TURNS_LIMIT, "The most model "
      + "calls (default " + DEFAULT_MAX_TURNS + ").");
  /** When the agent's requests carry its {@code output_schema}. */
  static final List<String> SCHEMA_TURNS = List.of("final", "every_turn");
  private static final FieldSpec OUTPUT_SCHEMA_ON = FieldSpec.choice("output_schema_on", SCHEMA_TURNS, "When "
      + "output_schema is sent: final (default: turns that offer tools go without it; an answer that does not match "
      + "it is asked for once more, with it) or every_turn (with the tools on every turn: no extra call, but "
      + "servers that enforce a schema with a grammar, such as llama.cpp and Ollama, then never call a tool).");
  static final NodeKindSpec SPEC = NodeKindSpec.of("agent", "An llm that may call tools until it answers: think, "
      + "act, observe.", concat(LlmSettings.SPECS, List.of(
      FieldSpec.list("tools", null, "The tools it may call: built-in tool names, or {name: {options}}."),
      FieldSpec.list("mcp", null, "MCP servers whose tools it may call too: {command: [program, args...], env} or "
          + "{url}."),
      MAX_TURNS, OUTPUT_SCHEMA_ON, SandboxPolicy.FIELD))).oneRequired("prompt",
      "messages");
  private static final Set<String> RESULT_FIELDS = with(LlmSettings.RESULT_FIELDS, "tool_calls", "turns");

  /** For ServiceLoader, which finds this handler; engines may also register it by hand. */
  public AgentHandler() {}

  private static Set<String> with(Set<String> base, String... more) {
    Set<String> s = new HashSet<>(base);
    s.addAll(Set.of(more));
    return Set.copyOf(s);
  }

  @Override
  public NodeKindSpec spec() {
    return SPEC;
  }

  private static List<FieldSpec> concat(List<FieldSpec> a, List<FieldSpec> b) {
    List<FieldSpec> out = new ArrayList<>(a);
    out.addAll(b);
    return List.copyOf(out);
  }

  @Override
  public Set<String> resultFields() {
    return RESULT_FIELDS;
  }

  @Override
  public NodeProgram compile(NodeConfig cfg) {
    LlmSettings settings = LlmSettings.compile(cfg);
    ToolSet tools = ToolSet.compile(cfg, settings.session());
    Integer turns = cfg.has("max_turns") ? cfg.integer("max_turns", MAX_TURNS.minimumInt(), MAX_TURNS.maximumInt())
        : Integer.valueOf(DEFAULT_MAX_TURNS);
    int maxTurns = turns == null ? DEFAULT_MAX_TURNS : turns;
    String schemaOn = cfg.has("output_schema_on") ? cfg.string("output_schema_on") : "final";
    if (schemaOn != null && !SCHEMA_TURNS.contains(schemaOn)) {
      cfg.error("output_schema_on", "expected one of " + SCHEMA_TURNS + ", found '" + schemaOn + "'");
    }
    boolean everyTurn = "every_turn".equals(schemaOn);
    return new NodeProgram() {
      @Override
      public NodeOutcome execute(NodeContext ctx) throws InterruptedException {
        return new AgentRun(ctx, settings, tools, maxTurns, everyTurn).run();
      }

      @Override
      public boolean storesWholeResult() {
        return true;
      }
    };
  }
}
