package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.sandbox.ProcessSandbox;
import dev.loopflow.core.sandbox.SandboxPolicy;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.spi.NodeConfig;
import java.util.Map;

/** What the process nodes (shell, Python and Node scripts) share: their sandbox and output fields. */
final class Processes {
  private Processes() {}

  static final FieldSpec MAX_OUTPUT_BYTES = FieldSpec.integer("max_output_bytes", 1024, 256L * 1024 * 1024,
      "The most bytes of stdout, and of stderr, kept (default 1 MiB): the first and last halves, the middle left "
          + "out and said so. The process is read to its end either way.");

  /** A process node's settings, read once when it is compiled. */
  record Settings(SandboxPolicy sandbox, int maxOutputBytes) {}

  static Settings settings(NodeConfig cfg) {
    Integer max = cfg.integer(MAX_OUTPUT_BYTES.name(), MAX_OUTPUT_BYTES.minimumInt(), MAX_OUTPUT_BYTES.maximumInt());
    return new Settings(SandboxPolicy.of(cfg), max == null ? ProcessSandbox.DEFAULT_MAX_OUTPUT_BYTES : max);
  }

  /** Adds how the process ran, and how much it wrote when its output was cut, to a node's result fields. */
  static void describe(ProcessSandbox.Finished r, Map<String, Object> fields) {
    fields.put("sandbox", r.sandbox());
    if (r.stdoutCut()) {
      fields.put("stdoutBytes", r.stdoutBytes());
    }
    if (r.stderrCut()) {
      fields.put("stderrBytes", r.stderrBytes());
    }
  }

  static String chomp(String s) {
    if (s.endsWith("\r\n")) {
      return s.substring(0, s.length() - 2);
    }
    return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
  }
}
