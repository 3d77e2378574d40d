package dev.loopflow.core.sandbox;

import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.spi.NodeConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a process node's processes may do: {@code sandbox:} on the node, else in {@code defaults}, else
 * {@link #WORKSPACE}.
 *
 * <ul>
 *   <li>{@code off} (also {@code false}, which is how YAML reads an unquoted {@code off}): nothing is contained.
 *   <li>{@code workspace}: the filesystem is read-only except the node's working directory and {@code /tmp}; loopflow's
 *       home, the run store and the usual credential stores read as empty; the network is the host's.
 *   <li>{@code strict}: {@code workspace} without any network (loopback included).
 *   <li>{@code {network, write, read_deny}}: {@code workspace} with the network on or off, more writable paths and
 *       more paths that read as empty. What is always hidden stays hidden: a {@code write} path never uncovers it.
 * </ul>
 *
 * @param level {@code off}, {@code workspace}, {@code strict} or {@code custom}
 * @param contained whether the processes run in a sandbox at all
 * @param network whether they share the host's network
 * @param write more writable paths (absolute, {@code ~/…}, or relative to the working directory)
 * @param readDeny more paths that read as empty (written the same way)
 */
public record SandboxPolicy(String level, boolean contained, boolean network, List<String> write,
    List<String> readDeny) {
  public static final SandboxPolicy OFF = new SandboxPolicy("off", false, true, List.of(), List.of());
  public static final SandboxPolicy WORKSPACE = new SandboxPolicy("workspace", true, true, List.of(), List.of());
  public static final SandboxPolicy STRICT = new SandboxPolicy("strict", true, false, List.of(), List.of());

  /** The named levels, in the order documents list them. */
  public static final List<String> LEVELS = List.of("off", "workspace", "strict");

  private static final List<FieldSpec> CUSTOM = List.of(
      FieldSpec.bool("network", "Whether the processes share the host's network (default true)."),
      FieldSpec.list("write", FieldSpec.string("write", null), "More writable paths: absolute, ~/..., or relative "
          + "to the working directory."),
      FieldSpec.list("read_deny", FieldSpec.string("read_deny", null), "More paths that read as empty."));

  /** The {@code sandbox} field of process nodes and of {@code defaults}. */
  public static final FieldSpec FIELD = FieldSpec.oneOf("sandbox", "How the node's processes are contained: off, "
      + "workspace (the default: read-only filesystem except the working directory and /tmp, credentials and the "
      + "run store hidden), strict (workspace without network), or {network, write, read_deny}.",
      FieldSpec.choice("sandbox", LEVELS, null), FieldSpec.bool("sandbox", null),
      FieldSpec.section("sandbox", CUSTOM, null));

  public SandboxPolicy {
    if (!Set.of("off", "workspace", "strict", "custom").contains(level)) {
      throw new IllegalArgumentException("level must be off, workspace, strict or custom, was '" + level + "'");
    }
    write = List.copyOf(write);
    readDeny = List.copyOf(readDeny);
  }

  /**
   * The policy a {@code sandbox:} value describes (a level name or a map), or {@link #WORKSPACE} for null. Throws
   * {@link IllegalArgumentException} naming the field and the value when it describes none.
   */
  public static SandboxPolicy of(Object value) {
    if (value == null) {
      return WORKSPACE;
    }
    if (value instanceof Boolean b) { // YAML reads an unquoted off as false
      return b ? WORKSPACE : OFF;
    }
    if (value instanceof String s) {
      return switch (s) {
        case "off" -> OFF;
        case "workspace" -> WORKSPACE;
        case "strict" -> STRICT;
        default -> throw new IllegalArgumentException("sandbox must be off, workspace, strict or a map {network, "
            + "write, read_deny}, was '" + s + "'");
      };
    }
    if (!(value instanceof Map<?, ?> m)) {
      throw new IllegalArgumentException("sandbox must be off, workspace, strict or a map {network, write, "
          + "read_deny}, was " + describe(value));
    }
    for (Object k : m.keySet()) {
      if (!Set.of("network", "write", "read_deny").contains(String.valueOf(k))) {
        throw new IllegalArgumentException("sandbox." + k + " is not a field (expected network, write, read_deny)");
      }
    }
    Object net = m.get("network");
    if (net != null && !(net instanceof Boolean)) {
      throw new IllegalArgumentException("sandbox.network must be true or false, was " + describe(net));
    }
    return new SandboxPolicy("custom", true, net == null || (Boolean) net, paths(m.get("write"), "write"),
        paths(m.get("read_deny"), "read_deny"));
  }

  /**
   * The policy of a node being compiled: its own {@code sandbox}, else {@code defaults.sandbox}, else
   * {@link #WORKSPACE}. A value that describes no policy is reported on the field and gives {@link #WORKSPACE}.
   */
  public static SandboxPolicy of(NodeConfig cfg) {
    boolean own = cfg.has(FIELD.name());
    Object value = own ? cfg.plain(FIELD.name()) : cfg.defaults().get(FIELD.name());
    try {
      return of(value);
    } catch (IllegalArgumentException e) {
      if (own) {
        cfg.error(FIELD.name(), e.getMessage());
      } // a bad defaults.sandbox is reported once, where defaults are read
      return WORKSPACE;
    }
  }

  private static List<String> paths(Object value, String field) {
    if (value == null) {
      return List.of();
    }
    if (!(value instanceof List<?> list)) {
      throw new IllegalArgumentException("sandbox." + field + " must be a list of paths, was " + describe(value));
    }
    List<String> out = new ArrayList<>();
    for (Object o : list) {
      if (!(o instanceof String s) || s.isBlank() || s.indexOf('\0') >= 0 || s.indexOf('\n') >= 0) {
        throw new IllegalArgumentException("sandbox." + field + " must hold non-empty paths, found "
            + describe(o));
      }
      out.add(s);
    }
    return out;
  }

  private static String describe(Object v) {
    return v == null ? "nothing" : v instanceof String s ? "'" + s + "'" : v instanceof Map ? "a map"
        : v instanceof List ? "a list" : String.valueOf(v);
  }
}
