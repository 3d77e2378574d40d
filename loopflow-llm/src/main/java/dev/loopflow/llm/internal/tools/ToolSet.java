package dev.loopflow.llm.internal.tools;

import dev.loopflow.core.ErrorCode;
import dev.loopflow.core.LoopflowException;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node's {@code tools:} and {@code mcp:}, checked and compiled at load (every problem is reported through the
 * node's config, at the field, naming the entry), and opened once per execution into a {@link Toolbox}.
 *
 * <p>{@code tools:} entries: a built-in's name ({@code http}, {@code request_restart}, {@code shared_memory_read},
 * {@code shared_memory_write}), or a one-key mapping from that name to its options ({@code http: {timeout,
 * max_response_bytes}}, {@code shell: {allow: true, timeout, max_output_bytes}}; shell only this way), or
 * {@code {workflow: FILE, name?, description?}}. {@code mcp:} entries: {@code {command: [argv...], env?, timeout?}}
 * or {@code {url: http(s)://..., timeout?}}.
 */
public final class ToolSet {
  static final Duration HTTP_TIMEOUT = Duration.ofSeconds(30);
  static final int HTTP_MAX_BYTES = 1 << 20;
  static final Duration SHELL_TIMEOUT = Duration.ofSeconds(30);
  static final int SHELL_MAX_OUTPUT = 64 * 1024;
  static final Duration MCP_TIMEOUT = Duration.ofSeconds(60);
  static final Duration MAX_TIMEOUT = Duration.ofHours(1);
  private static final List<String> BUILT_INS = List.of(HttpTool.NAME, ShellTool.NAME, RestartTool.NAME,
      MemoryTool.READ, MemoryTool.WRITE, WorkflowTool.KEY);

  private final List<Tool> tools;
  private final List<McpServer> servers;

  private ToolSet(List<Tool> tools, List<McpServer> servers) {
    this.tools = List.copyOf(tools);
    this.servers = List.copyOf(servers);
  }

  /**
   * Checks and compiles the node's {@code tools} and {@code mcp} fields, reporting problems through {@code cfg}.
   * {@code session} is the node's session name (null without one), which owns the session namespace of shared
   * memory.
   */
  public static ToolSet compile(NodeConfig cfg, String session) {
    List<Tool> tools = new ArrayList<>();
    Set<String> names = new HashSet<>();
    List<Object> entries = cfg.list("tools");
    if (entries != null) {
      for (int i = 0; i < entries.size(); i++) {
        String at = "tools[" + i + "]: ";
        Tool t = tool(cfg, entries.get(i), session, at);
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
        McpServer s = server(cfg, mcp.get(i), "mcp[" + i + "]: ");
        if (s != null) {
          servers.add(s);
        }
      }
    }
    return new ToolSet(tools, servers);
  }

  private static Tool tool(NodeConfig cfg, Object entry, String session, String at) {
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
        cfg.error("tools", at + "the options of '" + k + "' must be a mapping, found " + describe(v));
        return null;
      }
    } else {
      cfg.error("tools", at + "expected a tool name or {name: {options}}, found " + describe(entry));
      return null;
    }
    return switch (name) {
      case HttpTool.NAME -> {
        if (!known(cfg, options, Set.of("timeout", "max_response_bytes"), name, at)) {
          yield null;
        }
        Duration timeout = duration(cfg, options.get("timeout"), HTTP_TIMEOUT, name + ".timeout", at);
        Integer max = positive(cfg, options.get("max_response_bytes"), HTTP_MAX_BYTES, 64 << 20,
            name + ".max_response_bytes", at);
        yield timeout == null || max == null ? null : new HttpTool(timeout, max);
      }
      case ShellTool.NAME -> {
        if (!known(cfg, options, Set.of("allow", "timeout", "max_output_bytes"), name, at)) {
          yield null;
        }
        if (!Boolean.TRUE.equals(options.get("allow"))) {
          cfg.error("tools", at + "the shell tool runs commands the model writes, so it must be enabled explicitly: "
              + "{shell: {allow: true}}");
          yield null;
        }
        Duration timeout = duration(cfg, options.get("timeout"), SHELL_TIMEOUT, name + ".timeout", at);
        Integer max = positive(cfg, options.get("max_output_bytes"), SHELL_MAX_OUTPUT, 16 << 20,
            name + ".max_output_bytes", at);
        yield timeout == null || max == null ? null : new ShellTool(timeout, max);
      }
      case RestartTool.NAME -> known(cfg, options, Set.of(), name, at) ? new RestartTool() : null;
      case MemoryTool.READ, MemoryTool.WRITE -> known(cfg, options, Set.of(), name, at)
          ? new MemoryTool(name.equals(MemoryTool.WRITE), session, cfg.id()) : null;
      default -> {
        cfg.error("tools", at + "unknown tool '" + name + "'; the built-in tools are " + BUILT_INS
            + " (MCP servers' tools come from mcp:)");
        yield null;
      }
    };
  }

  private static Tool workflow(NodeConfig cfg, Map<?, ?> m, String at) {
    if (!known(cfg, m, Set.of(WorkflowTool.KEY, "name", "description"), WorkflowTool.KEY, at)) {
      return null;
    }
    if (!(m.get(WorkflowTool.KEY) instanceof String file) || file.isBlank()) {
      cfg.error("tools", at + "workflow: needs the path of a workflow file, found " + describe(m.get(WorkflowTool.KEY)));
      return null;
    }
    Object name = m.get("name");
    Object description = m.get("description");
    if (name != null && !(name instanceof String) || description != null && !(description instanceof String)) {
      cfg.error("tools", at + "name and description of a workflow tool must be text");
      return null;
    }
    try {
      return WorkflowTool.of(resolve(cfg, file), (String) name, (String) description);
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

  private static McpServer server(NodeConfig cfg, Object entry, String at) {
    if (!(entry instanceof Map<?, ?> m)) {
      cfg.error("mcp", at + "expected {command: [program, args...]} or {url: ...}, found " + describe(entry));
      return null;
    }
    if (!known(cfg, m, Set.of("command", "env", "url", "timeout"), "an MCP server", at, "mcp")) {
      return null;
    }
    Duration timeout = duration(cfg, m.get("timeout"), MCP_TIMEOUT, "timeout", at, "mcp");
    if (timeout == null) {
      return null;
    }
    if (m.containsKey("command") == m.containsKey("url")) {
      cfg.error("mcp", at + "give exactly one of command: (a server process) or url: (a streamable HTTP server)");
      return null;
    }
    if (m.containsKey("url")) {
      if (m.containsKey("env")) {
        cfg.error("mcp", at + "env: applies to a server process (command:), not to a server at a url");
        return null;
      }
      if (!(m.get("url") instanceof String url) || !url.matches("(?i)https?://[^\\s/?#]+.*")) {
        cfg.error("mcp", at + "url must be an http:// or https:// URL, found " + describe(m.get("url")));
        return null;
      }
      return new McpServer(null, Map.of(), url, timeout);
    }
    List<String> command = new ArrayList<>();
    if (m.get("command") instanceof List<?> argv && !argv.isEmpty()) {
      for (Object a : argv) {
        if (!(a instanceof String s) || s.isEmpty()) {
          cfg.error("mcp", at + "command must be a list of non-empty strings (the program and its arguments), "
              + "found " + describe(a) + " in it");
          return null;
        }
        command.add(s);
      }
    } else {
      cfg.error("mcp", at + "command must be a list: the program and its arguments, e.g. [npx, -y, "
          + "some-mcp-server]; found " + describe(m.get("command")));
      return null;
    }
    Map<String, String> env = new LinkedHashMap<>();
    if (m.get("env") instanceof Map<?, ?> e) {
      for (Map.Entry<?, ?> kv : e.entrySet()) {
        if (!(kv.getValue() instanceof String || kv.getValue() instanceof Number || kv.getValue() instanceof Boolean)) {
          cfg.error("mcp", at + "env." + kv.getKey() + " must be text, found " + describe(kv.getValue()));
          return null;
        }
        env.put(String.valueOf(kv.getKey()), String.valueOf(kv.getValue()));
      }
    } else if (m.get("env") != null) {
      cfg.error("mcp", at + "env must be a mapping of variable name to value, found " + describe(m.get("env")));
      return null;
    }
    return new McpServer(command, env, null, timeout);
  }

  private static boolean known(NodeConfig cfg, Map<?, ?> options, Set<String> allowed, String what, String at) {
    return known(cfg, options, allowed, what, at, "tools");
  }

  private static boolean known(NodeConfig cfg, Map<?, ?> options, Set<String> allowed, String what, String at,
      String field) {
    for (Object k : options.keySet()) {
      if (!allowed.contains(String.valueOf(k))) {
        cfg.error(field, at + "unknown option '" + k + "' for " + what + (allowed.isEmpty() ? " (it takes none)"
            : "; expected " + new java.util.TreeSet<>(allowed)));
        return false;
      }
    }
    return true;
  }

  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

  private static Duration duration(NodeConfig cfg, Object v, Duration fallback, String what, String at) {
    return duration(cfg, v, fallback, what, at, "tools");
  }

  /** A timeout written as a number of seconds or as 500ms, 30s, 2m, 1h, 1m30s; between 1 ms and an hour. */
  private static Duration duration(NodeConfig cfg, Object v, Duration fallback, String what, String at,
      String field) {
    if (v == null) {
      return fallback;
    }
    Duration d = null;
    if (v instanceof Number n && n.doubleValue() > 0) {
      d = Duration.ofMillis(Math.round(n.doubleValue() * 1000));
    } else if (v instanceof String s) {
      Matcher m = DURATION.matcher(s.strip().toLowerCase(java.util.Locale.ROOT));
      int pos = 0;
      Duration total = Duration.ZERO;
      while (m.find() && m.start() == pos) {
        double amount = Double.parseDouble(m.group(1));
        total = total.plusMillis(Math.round(amount * switch (m.group(2)) {
          case "ms" -> 1;
          case "s" -> 1000;
          case "m" -> 60_000;
          default -> 3_600_000;
        }));
        pos = m.end();
      }
      d = pos > 0 && pos == s.strip().length() ? total : null;
    }
    if (d == null || d.isZero() || d.compareTo(MAX_TIMEOUT) > 0) {
      cfg.error(field, at + what + " must be a duration between 1ms and 1h (e.g. 30s, 2m), found " + describe(v));
      return null;
    }
    return d;
  }

  private static Integer positive(NodeConfig cfg, Object v, int fallback, int max, String what, String at) {
    if (v == null) {
      return fallback;
    }
    if (v instanceof Integer || v instanceof Long) {
      long n = ((Number) v).longValue();
      if (n >= 1 && n <= max) {
        return (int) n;
      }
    }
    cfg.error("tools", at + what + " must be a whole number from 1 to " + max + ", found " + describe(v));
    return null;
  }

  private static String describe(Object v) {
    return dev.loopflow.core.expr.Values.describe(v);
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
        McpServer.Connection c = s.connect(ctx, i);
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

  /** Whether the node offers any tool at all (MCP servers may add more at run time). */
  public boolean isEmpty() {
    return tools.isEmpty() && servers.isEmpty();
  }
}
