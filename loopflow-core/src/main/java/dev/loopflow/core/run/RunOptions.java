package dev.loopflow.core.run;

import dev.loopflow.core.event.EventListener;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Per-run settings, frozen when built. {@code options} carries extension settings by name (for example
 * {@code llm.mock_script}); {@code environment} defaults to the process environment.
 */
public final class RunOptions {
  /**
   * Option: when true, http nodes refuse to connect to loopback, private, link-local and other non-public
   * addresses, checked after DNS resolution and again on every redirect. Off by default: local services and test
   * servers are legitimate targets.
   */
  public static final String HTTP_DENY_PRIVATE = "http.deny_private";

  /**
   * Option: {@code true} makes every LLM call of the run go to the mock provider, whatever model a node names
   * ({@code --mock-llm}). Kept with the run, so a resume answers from the mock again.
   */
  public static final String LLM_MOCK = "llm.mock";

  /**
   * Option: whether process nodes run contained ({@code auto}, {@code required} or {@code off}, as a string or a
   * {@link dev.loopflow.core.sandbox.SandboxMode}); {@code auto} when absent.
   */
  public static final String SANDBOX_MODE = "sandbox.mode";

  /**
   * Option: paths (a list of strings) that contained processes read as empty on top of the always-hidden ones; the
   * command line puts loopflow's home and the run store's files here.
   */
  public static final String SANDBOX_HIDDEN_PATHS = "sandbox.hidden_paths";

  /**
   * Option, set by the engine on a fork: where it comes from ({@code run_id}, {@code at}), how much of its origin's
   * journal it reuses, and its edits. Kept with the run like every option, so a resumed fork reuses the same prefix
   * and applies the same edits.
   */
  public static final String FORKED_FROM = "loopflow.forked_from";

  /**
   * The run ids a front end accepts from a person or a client (the CLI's {@code --run-id}, the server's
   * {@code run_id}): 1 to 64 letters, digits, {@code _}, {@code .} or {@code -}. Such an id fits every store and is
   * safe in a URL path, a file name and a terminal. Runs started from Java may have any non-blank id.
   */
  public static final Pattern PORTABLE_RUN_ID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

  private final String runId;
  private final Map<String, Object> inputs;
  private final List<EventListener> listeners;
  private final Map<String, Object> options;
  private final Map<String, String> environment;
  private final Path workingDirectory;
  private final Duration timeout;

  private RunOptions(Builder b) {
    this.runId = b.runId;
    this.inputs = Collections.unmodifiableMap(new LinkedHashMap<>(b.inputs));
    this.listeners = List.copyOf(b.listeners);
    this.options = Collections.unmodifiableMap(new LinkedHashMap<>(b.options));
    this.environment = b.environment == null ? System.getenv() : Map.copyOf(b.environment);
    this.workingDirectory = b.workingDirectory == null ? Path.of("").toAbsolutePath() : b.workingDirectory;
    this.timeout = b.timeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static RunOptions defaults() {
    return builder().build();
  }

  public String runId() {
    return runId;
  }

  public Map<String, Object> inputs() {
    return inputs;
  }

  public List<EventListener> listeners() {
    return listeners;
  }

  public Map<String, Object> options() {
    return options;
  }

  public Map<String, String> environment() {
    return environment;
  }

  public Path workingDirectory() {
    return workingDirectory;
  }

  /** Overrides the workflow's {@code limits.timeout} when set. */
  public Duration timeout() {
    return timeout;
  }

  /**
   * These options with {@code defaults} added for every option not set here; used to resume a run with the options
   * it journaled, unless the resume sets them itself.
   */
  public RunOptions withOptionDefaults(Map<String, Object> defaults) {
    if (defaults == null || defaults.isEmpty()) {
      return this;
    }
    Builder b = new Builder();
    b.runId = runId;
    b.inputs.putAll(inputs);
    b.listeners.addAll(listeners);
    b.options.putAll(defaults);
    b.options.putAll(options);
    b.environment = environment;
    b.workingDirectory = workingDirectory;
    b.timeout = timeout;
    return b.build();
  }

  public static final class Builder {
    private String runId;
    private final Map<String, Object> inputs = new LinkedHashMap<>();
    private final List<EventListener> listeners = new ArrayList<>();
    private final Map<String, Object> options = new LinkedHashMap<>();
    private Map<String, String> environment;
    private Path workingDirectory;
    private Duration timeout;

    public Builder runId(String id) {
      if (id == null || id.isBlank()) {
        throw new IllegalArgumentException("runId must be a non-empty string, was '" + id + "'");
      }
      this.runId = id;
      return this;
    }

    public Builder input(String name, Object value) {
      inputs.put(Objects.requireNonNull(name, "input name"), value);
      return this;
    }

    public Builder inputs(Map<String, ?> values) {
      values.forEach(this::input);
      return this;
    }

    public Builder listener(EventListener l) {
      listeners.add(Objects.requireNonNull(l, "listener"));
      return this;
    }

    public Builder option(String name, Object value) {
      options.put(Objects.requireNonNull(name, "option name"), value);
      return this;
    }

    public Builder environment(Map<String, String> env) {
      this.environment = Objects.requireNonNull(env, "environment");
      return this;
    }

    public Builder workingDirectory(Path dir) {
      this.workingDirectory = Objects.requireNonNull(dir, "workingDirectory").toAbsolutePath();
      return this;
    }

    public Builder timeout(Duration t) {
      if (t != null && (t.isZero() || t.isNegative())) {
        throw new IllegalArgumentException("timeout must be positive, was " + t);
      }
      this.timeout = t;
      return this;
    }

    public RunOptions build() {
      return new RunOptions(this);
    }
  }
}
