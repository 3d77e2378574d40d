package dev.loopflow.core.sandbox;

import java.util.Locale;

/**
 * Whether a run enforces its nodes' sandbox policies. Set per run ({@code --sandbox}, {@code LOOPFLOW_SANDBOX}, or the
 * run option {@link dev.loopflow.core.run.RunOptions#SANDBOX_MODE}); the default is {@link #AUTO}.
 */
public enum SandboxMode {
  /** Contain where bubblewrap works; elsewhere run process nodes as they are and say so in each node's result. */
  AUTO,
  /**
   * Contain every process node, or fail it with {@code sandbox_required} before it starts: when bubblewrap does not
   * work here, and when the node itself asks for {@code sandbox: off}.
   */
  REQUIRED,
  /** Contain nothing, whatever the nodes ask for (their results say {@code disabled}). */
  OFF;

  /** The mode named {@code value} ({@code auto}, {@code required} or {@code off}, any case). */
  public static SandboxMode of(String value) {
    if (value != null) {
      for (SandboxMode m : values()) {
        if (m.name().equalsIgnoreCase(value.strip())) {
          return m;
        }
      }
    }
    throw new IllegalArgumentException("the sandbox mode must be auto, required or off, was '" + value + "'");
  }

  /** The lower-case name, as flags, options and documents spell it. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
