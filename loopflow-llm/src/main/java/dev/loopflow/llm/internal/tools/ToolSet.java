package dev.loopflow.llm.internal.tools;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.sandbox.SandboxPolicy;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A node's {@code tools:} and {@code mcp:}, checked and compiled at load (every problem is reported through the
 * node's config, at the field, naming the entry), and opened once per execution into a {@link Toolbox}.
 *
 * <p>{@code tools:} entries: a built-in's name ({@code http}, {@code request_restart}, {@code shared_memory_read},
 * {@code shared_memory_write}), or a one-key mapping from that name to its options ({@code http: {timeout,
 * max_response_bytes}}, {@code shell: {allow: true, timeout, max_output_bytes}}; shell only this way), or
 * {@code {workflow: FILE, name?, description?, max_runs_per_reply?, max_runs_per_run?}}. {@code mcp:} entries:
 * {@code {command: [argv...], env?, timeout?}} or {@code {url: http(s)://..., timeout?}}.
 */
public final class ToolSet {
  static final Duration HTTP_TIMEOUT = Duration.ofSeconds(30);
  static final int HTTP_MAX_BYTES = 1 << 20;
  static final Duration SHELL_TIMEOUT = Duration.ofSeconds(30);
  static final int SHELL_MAX_OUTPUT = 64 * 1024;
  private static final List<String> BUILT_INS = List.of(HttpTool.NAME, ShellTool.NAME, RestartTool.NAME,
      MemoryTool.READ, MemoryTool.WRITE, WorkflowTool.KEY);

  private final List<Tool> tools;
  private final List<McpServer> servers;
  /** The node's sandbox: its shell tool's commands and its stdio MCP servers run under it. */
  private final SandboxPolicy sandbox;

  private ToolSet(List<Tool> tools, List<McpServer> servers, SandboxPolicy sandbox) {
    this.tools = List.copyOf(tools);
    this.servers = List.copyOf(servers);
    this.sandbox = sandbox;
  }

  /**
   * Checks and compiles the node's {@code tools} and {@code mcp} fields, reporting problems through {@code cfg}.
   * {@code session} is the node's session name (null without one), which owns the session namespace of shared
   * memory.
   */
  public static ToolSet compile(NodeConfig cfg, String session) {
    SandboxPolicy sandbox = SandboxPolicy.of(cfg);
    List<Tool> tools = new ArrayList<>();
    Set<String> names = new HashSet<>();
    List<Object> entries = cfg.list("tools");
    if (entries != null) {
      for (int i = 0; i < entries.size(); i++) {
        String at = "tools[" + i + "]: ";
        Tool t = tool(cfg, entries.get(i), session, at, sandbox);
        if (t != null && !names.add(t.spec().name())) {
          cfg.error("tools", at + "a tool named '" + t.spec().name() + "' is already offered; give each tool "
              + "once (name a workflow tool with name:)");
        } else if (t != null) {
          tools.add(t);
        }
      }
    }
    List<McpServer> servers = new ArrayList<>();
    List<Object> mcp = cfg.list("mcp");
    if (mcp != null) {
      for (int i = 0; i < mcp.size(); i++) {
        McpServer s = McpServer.parse(cfg, mcp.get(i), "mcp[" + i + "]: ");
        if (s != null) {
          servers.add(s);
        }
      }
    }
    return new ToolSet(tools, servers, sandbox);
  }

  private static Tool tool(NodeConfig cfg, Object entry, String session, String at, SandboxPolicy sandbox) {
    String name;
    Map<?, ?> options = Map.of();
    if (entry instanceof String s) {
      name = s;
    } else if (entry instanceof Map<?, ?> m && m.containsKey(WorkflowTool.KEY)) {
      return workflow(cfg, m, at);
    } else if (entry instanceof Map<?, ?> m && m.size() == 1 && m.keySet().iterator().next() instanceof String k) {
      name = k;
      Object v = m.values().iterator().next();
      if (v instanceof Map<?, ?> o) {
        options = o;
      } else if (v != null) {
        cfg.error("tools", at + "the options of '" + k + "' must be a mapping, found " + ToolOptions.describe(v));
        return null;
      }
    } else {
      cfg.error("tools", at + "expected a tool name or {name: {options}}, found " + ToolOptions.describe(entry));
      return null;
    }
    return switch (name) {
      case HttpTool.NAME -> {
        if (!ToolOptions.known(cfg, options, Set.of("timeout", "max_response_bytes"), name, at)) {
          yield null;
        }
        Duration timeout = ToolOptions.duration(cfg, options.get("timeout"), HTTP_TIMEOUT, name + ".timeout", at);
        Integer max = ToolOptions.positive(cfg, options.get("max_response_bytes"), HTTP_MAX_BYTES, 64 << 20,
            name + ".max_response_bytes", at);
        yield timeout == null || max == null ? null : new HttpTool(timeout, max);
      }
      case ShellTool.NAME -> {
        if (!ToolOptions.known(cfg, options, Set.of("allow", "timeout", "max_output_bytes"), name, at)) {
          yield null;
        }
        if (!Boolean.TRUE.equals(options.get("allow"))) {
          cfg.error("tools", at + "the shell tool runs commands the model writes, so it must be enabled explicitly: "
              + "{shell: {allow: true}}");
          yield null;
        }
        Duration timeout = ToolOptions.duration(cfg, options.get("timeout"), SHELL_TIMEOUT, name + ".timeout", at);
        Integer max = ToolOptions.positive(cfg, options.get("max_output_bytes"), SHELL_MAX_OUTPUT, 16 << 20,
            name + ".max_output_bytes", at);
        yield timeout == null || max == null ? null : new ShellTool(timeout, max, sandbox);
      }
      case RestartTool.NAME -> ToolOptions.known(cfg, options, Set.of(), name, at) ? new RestartTool() : null;
      case MemoryTool.READ, MemoryTool.WRITE -> ToolOptions.known(cfg, options, Set.of(), name, at)
          ? new MemoryTool(name.equals(MemoryTool.WRITE), session, cfg.id()) : null;
      default -> {
        cfg.error("tools", at + "unknown tool '" + name + "'; the built-in tools are " + BUILT_INS
            + " (MCP servers' tools come from mcp:)");
        yield null;
      }
    };
  }

  private static Tool workflow(NodeConfig cfg, Map<?, ?> m, String at) {
    if (!ToolOptions.known(cfg, m, Set.of(WorkflowTool.KEY, "name", "description", "max_runs_per_reply",
        "max_runs_per_run"), WorkflowTool.KEY, at)) {
      return null;
    }
    if (!(m.get(WorkflowTool.KEY) instanceof String file) || file.isBlank()) {
      cfg.error("tools", at + "workflow: needs the path of a workflow file, found "
          + ToolOptions.describe(m.get(WorkflowTool.KEY)));
      return null;
    }
    Object name = m.get("name");
    Object description = m.get("description");
    if (name != null && !(name instanceof String) || description != null && !(description instanceof String)) {
      cfg.error("tools", at + "name and description of a workflow tool must be text");
      return null;
    }
    Integer perReply = ToolOptions.positive(cfg, m.get("max_runs_per_reply"), WorkflowTool.DEFAULT_RUNS_PER_REPLY,
        WorkflowTool.MAX_RUNS, "max_runs_per_reply", at);
    Integer perRun = ToolOptions.positive(cfg, m.get("max_runs_per_run"), WorkflowTool.DEFAULT_RUNS_PER_RUN,
        WorkflowTool.MAX_RUNS, "max_runs_per_run", at);
    if (perReply == null || perRun == null) {
      return null;
    }
    try {
      return WorkflowTool.of(resolve(cfg, file), (String) name, (String) description, perReply, perRun);
    } catch (IllegalArgumentException e) {
      cfg.error("tools", at + e.getMessage());
      return null;
    }
  }

  /** A workflow tool's file: relative paths are relative to the directory of the workflow that names it. */
  private static Path resolve(NodeConfig cfg, String file) {
    Path p = Path.of(file);
    if (p.isAbsolute()) {
      return p.normalize();
    }
    Path workflow = Path.of(cfg.location().file()).toAbsolutePath();
    Path dir = workflow.getParent();
    return (dir == null ? p.toAbsolutePath() : dir.resolve(p)).normalize();
  }

  /**
   * This node's tools for one execution: MCP servers are started (in order; one that fails stops those already
   * started and fails the node) and their tools added after the node's own. Close the toolbox when the execution
   * ends.
   */
  public Toolbox open(NodeContext ctx) {
    List<Tool> all = new ArrayList<>(tools);
    List<AutoCloseable> clients = new ArrayList<>();
    try {
      for (int i = 0; i < servers.size(); i++) {
        McpServer s = servers.get(i);
        McpServer.Connection c = s.connect(ctx, i, sandbox);
        clients.add(c.client());
        for (Tool t : c.tools()) {
          String clash = all.stream().map(x -> x.spec().name()).filter(t.spec().name()::equals).findFirst()
              .orElse(null);
          if (clash != null) {
            throw new LoopflowException(ErrorCode.NODE_FAILED, "MCP server " + s.label() + " offers a tool named '"
                + clash + "', which another tool of this node already has", ctx.position());
          }
          all.add(t);
        }
      }
    } catch (RuntimeException e) {
      new Toolbox(List.of(), clients).close(); // the servers already started must not outlive the failure
      throw e;
    }
    return new Toolbox(all, clients);
  }
}
