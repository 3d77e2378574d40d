package dev.loopflow.core.store;

import dev.loopflow.core.run.RunError;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.run.Waiting;
import dev.loopflow.core.spi.Usage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;

/**
 * A run as journaled: what ran (source and its hash, and the directory it ran in, where a resumed run's shell
 * nodes run again), with what inputs and run options (those a resume must reuse, such as the mock LLM provider
 * and its script), and how it ended. A paused run also records what it waits for ({@code waiting}). A run that
 * ended or paused keeps its final {@code state} and top-level {@code nodes} report, so it is shown exactly as
 * {@code run --json} printed it; both are null while it runs (a crashed run is shown from its node executions).
 *
 * <p>Immutable; made with {@link #builder} and changed with {@link #toBuilder}, field by name. {@code runId},
 * {@code workflow}, {@code status} and {@code startedAt} are required; {@code options} is never null (empty when
 * none).
 */
public final class RunRecord {
  private final String runId;
  private final String workflow;
  private final String file;
  private final String source;
  private final String sourceHash;
  private final Map<String, Object> inputs;
  private final Map<String, Object> options;
  private final RunStatus status;
  private final Instant startedAt;
  private final Instant finishedAt;
  private final Usage usage;
  private final Object output;
  private final RunError error;
  private final Waiting waiting;
  private final String workingDirectory;
  private final Map<String, Object> state;
  private final Map<String, Object> nodes;
  private final Map<String, Object> pipeline;

  private RunRecord(Builder b) {
    this.runId = Objects.requireNonNull(b.runId, "runId");
    this.workflow = Objects.requireNonNull(b.workflow, "workflow");
    this.status = Objects.requireNonNull(b.status, "status");
    this.startedAt = Objects.requireNonNull(b.startedAt, "startedAt");
    this.file = b.file;
    this.source = b.source;
    this.sourceHash = b.sourceHash;
    this.inputs = b.inputs == null ? Map.of() : b.inputs;
    this.options = b.options == null ? Map.of() : b.options;
    this.finishedAt = b.finishedAt;
    this.usage = b.usage == null ? Usage.NONE : b.usage;
    this.output = b.output;
    this.error = b.error;
    this.waiting = b.waiting;
    this.workingDirectory = b.workingDirectory;
    this.state = b.state;
    this.nodes = b.nodes;
    this.pipeline = b.pipeline;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this record's fields, to change some of them. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.runId = runId;
    b.workflow = workflow;
    b.file = file;
    b.source = source;
    b.sourceHash = sourceHash;
    b.inputs = inputs;
    b.options = options;
    b.status = status;
    b.startedAt = startedAt;
    b.finishedAt = finishedAt;
    b.usage = usage;
    b.output = output;
    b.error = error;
    b.waiting = waiting;
    b.workingDirectory = workingDirectory;
    b.state = state;
    b.nodes = nodes;
    b.pipeline = pipeline;
    return b;
  }

  public String runId() {
    return runId;
  }

  /** The workflow's name. */
  public String workflow() {
    return workflow;
  }

  /** The file it was loaded from, or null. */
  public String file() {
    return file;
  }

  /** The workflow source it started from (credentials masked), or null when built in code. */
  public String source() {
    return source;
  }

  public String sourceHash() {
    return sourceHash;
  }

  public Map<String, Object> inputs() {
    return inputs;
  }

  /** Run options as plain JSON values; never null (empty when none). */
  public Map<String, Object> options() {
    return options;
  }

  public RunStatus status() {
    return status;
  }

  public Instant startedAt() {
    return startedAt;
  }

  public Instant finishedAt() {
    return finishedAt;
  }

  public Usage usage() {
    return usage;
  }

  public Object output() {
    return output;
  }

  public RunError error() {
    return error;
  }

  public Waiting waiting() {
    return waiting;
  }

  public String workingDirectory() {
    return workingDirectory;
  }

  public Map<String, Object> state() {
    return state;
  }

  public Map<String, Object> nodes() {
    return nodes;
  }

  /**
   * The {@code pipeline} summary of a run with a restart policy that ended or paused (iterations, validation
   * retries, decided restart requests); null otherwise.
   */
  public Map<String, Object> pipeline() {
    return pipeline;
  }

  /** The position path the run waits at, or null when it waits for nothing. */
  public String pausedAt() {
    return waiting == null ? null : waiting.path();
  }

  /**
   * Whether {@code source} is exactly the text the run started from. False when credentials written in it were
   * masked before it was journaled: the hash is always of the text as written, so it no longer matches, and the
   * journaled source cannot run as it is.
   */
  public boolean sourceIsExact() {
    return source == null || sourceHash == null || sourceHash.equals(hashOf(source));
  }

  public RunRecord finish(RunStatus s, Instant at, Usage u, Object out, RunError err) {
    return finish(s, at, u, out, err, state, nodes);
  }

  /** Ended: nothing is waited for any more. */
  public RunRecord finish(RunStatus s, Instant at, Usage u, Object out, RunError err, Map<String, Object> finalState,
      Map<String, Object> nodeReports) {
    return toBuilder().status(s).finishedAt(at).usage(u).output(out).error(err).waiting(null).state(finalState)
        .nodes(nodeReports).build();
  }

  public RunRecord paused(Instant at, Usage u, Waiting w) {
    return paused(at, u, w, state, nodes);
  }

  public RunRecord paused(Instant at, Usage u, Waiting w, Map<String, Object> finalState,
      Map<String, Object> nodeReports) {
    return toBuilder().status(RunStatus.PAUSED).finishedAt(at).usage(u).output(null).error(null).waiting(w)
        .state(finalState).nodes(nodeReports).build();
  }

  /** Running again, with the options the resumed attempt runs with; it no longer waits for anything. */
  public RunRecord resumed(Map<String, Object> runOptions) {
    return toBuilder().options(runOptions).status(RunStatus.RUNNING).finishedAt(null).output(null).error(null)
        .waiting(null).state(null).nodes(null).pipeline(null).build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RunRecord r && runId.equals(r.runId) && workflow.equals(r.workflow)
        && Objects.equals(file, r.file) && Objects.equals(source, r.source) && Objects.equals(sourceHash, r.sourceHash)
        && inputs.equals(r.inputs) && options.equals(r.options) && status == r.status
        && startedAt.equals(r.startedAt) && Objects.equals(finishedAt, r.finishedAt) && usage.equals(r.usage)
        && Objects.equals(output, r.output) && Objects.equals(error, r.error) && Objects.equals(waiting, r.waiting)
        && Objects.equals(workingDirectory, r.workingDirectory) && Objects.equals(state, r.state)
        && Objects.equals(nodes, r.nodes) && Objects.equals(pipeline, r.pipeline);
  }

  @Override
  public int hashCode() {
    return Objects.hash(runId, status, startedAt, finishedAt);
  }

  @Override
  public String toString() {
    return "RunRecord[" + runId + ", " + workflow + ", " + status.json() + ", started " + startedAt + "]";
  }

  /** Builds a {@link RunRecord}; every field by name. */
  public static final class Builder {
    private String runId;
    private String workflow;
    private String file;
    private String source;
    private String sourceHash;
    private Map<String, Object> inputs;
    private Map<String, Object> options;
    private RunStatus status;
    private Instant startedAt;
    private Instant finishedAt;
    private Usage usage;
    private Object output;
    private RunError error;
    private Waiting waiting;
    private String workingDirectory;
    private Map<String, Object> state;
    private Map<String, Object> nodes;
    private Map<String, Object> pipeline;

    private Builder() {}

    public Builder runId(String v) {
      runId = v;
      return this;
    }

    public Builder workflow(String v) {
      workflow = v;
      return this;
    }

    public Builder file(String v) {
      file = v;
      return this;
    }

    public Builder source(String v) {
      source = v;
      return this;
    }

    public Builder sourceHash(String v) {
      sourceHash = v;
      return this;
    }

    public Builder inputs(Map<String, Object> v) {
      inputs = v;
      return this;
    }

    public Builder options(Map<String, Object> v) {
      options = v;
      return this;
    }

    public Builder status(RunStatus v) {
      status = v;
      return this;
    }

    public Builder startedAt(Instant v) {
      startedAt = v;
      return this;
    }

    public Builder finishedAt(Instant v) {
      finishedAt = v;
      return this;
    }

    public Builder usage(Usage v) {
      usage = v;
      return this;
    }

    public Builder output(Object v) {
      output = v;
      return this;
    }

    public Builder error(RunError v) {
      error = v;
      return this;
    }

    public Builder waiting(Waiting v) {
      waiting = v;
      return this;
    }

    public Builder workingDirectory(String v) {
      workingDirectory = v;
      return this;
    }

    public Builder state(Map<String, Object> v) {
      state = v;
      return this;
    }

    public Builder nodes(Map<String, Object> v) {
      nodes = v;
      return this;
    }

    public Builder pipeline(Map<String, Object> v) {
      pipeline = v;
      return this;
    }

    public RunRecord build() {
      return new RunRecord(this);
    }
  }

  /**
   * The hash of a workflow's source journaled with every run (hex SHA-256 of its UTF-8 bytes), so a resume can tell
   * that the file changed; null for no source.
   */
  public static String hashOf(String source) {
    if (source == null) {
      return null;
    }
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(source.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every JDK has SHA-256
    }
  }
}
