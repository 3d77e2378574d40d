package dev.loopflow.core.model;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.run.AnswerSchema;
import dev.loopflow.core.spi.NodeProgram;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A node of a workflow. The fields every kind shares are here; what the node does is its {@link Body}:
 * either a work node compiled by a {@link dev.loopflow.core.spi.NodeHandler}, or one of the built-in control
 * nodes, which the scheduler interprets itself (so the set of control nodes is closed and every switch over it
 * is exhaustive).
 *
 * @param stateKey {@code output: key}: store the node's result into {@code state[key]}
 * @param allowFailure a failure completes the node (status failed) without failing the run
 */
public record Node(String id, String kind, Body body, List<String> dependsOn, Condition when, String stateKey,
    boolean allowFailure, Retry retry, Duration timeout, Location location) {

  public Node {
    Objects.requireNonNull(id, "node id");
    Objects.requireNonNull(kind, "kind of node '" + id + "'");
    Objects.requireNonNull(body, "body of node '" + id + "'");
    dependsOn = List.copyOf(dependsOn);
    retry = retry == null ? Retry.NONE : retry;
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw new IllegalArgumentException("timeout of node '" + id + "' must be positive, was " + timeout);
    }
  }

  /** Retries on failure: attempts (1 = no retry) and the delay between attempts. */
  public record Retry(int maxAttempts, Duration delay) {
    public static final Retry NONE = new Retry(1, Duration.ZERO);

    public Retry {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("retry.max_attempts must be at least 1, was " + maxAttempts);
      }
      if (delay == null || delay.isNegative()) {
        throw new IllegalArgumentException("retry.delay must be zero or positive, was " + delay);
      }
    }
  }

  /** What a node does. */
  public sealed interface Body permits Work, Router, Cancel, Input, Output, Loop, Marker, Approval {}

  /** A node implemented by a handler. */
  public record Work(NodeProgram program) implements Body {}

  /**
   * Picks one branch. Expression routes: ordered branch → condition (null condition = default). LLM routes:
   * branch → description, chosen by {@code model}.
   */
  public record Router(Map<String, Condition> routes, Map<String, String> descriptions, String model,
      Template instructions, Template value) implements Body {
    public Router {
      routes = Collections.unmodifiableMap(new LinkedHashMap<>(routes));
      descriptions = Collections.unmodifiableMap(new LinkedHashMap<>(descriptions));
    }

    public boolean byLlm() {
      return model != null;
    }
  }

  /**
   * Pauses the run until a person approves or rejects, with an optional comment. The node's {@code timeout} is
   * how long the person has: a resume without a decision after it takes {@code onTimeout}. A rejection fails the
   * node unless {@code failOnReject} is false, so nothing after a rejected approval runs by accident.
   * {@code schema} is the form an approval's answer fills (its values are the node's {@code values}), or null.
   */
  public record Approval(Template message, boolean approveOnTimeout, boolean failOnReject, AnswerSchema schema)
      implements Body {
    public Approval(Template message, boolean approveOnTimeout, boolean failOnReject) {
      this(message, approveOnTimeout, failOnReject, null);
    }
  }

  /** Ends the run as cancelled, with a reason. */
  public record Cancel(Template reason) implements Body {}

  /** The input marker: passes the run's input (or {@code value}) through. */
  public record Input(Template value) implements Body {}

  /** The output marker: passes its value through and marks the workflow's result. */
  public record Output(Template value) implements Body {}

  /**
   * A loop node: {@code loop}, {@code while_loop}, {@code loop_group} or {@code iterator}.
   * {@code body} holds the nested body of while_loop and loop_group; the graph-form constructs (loop, iterator)
   * take their body from the edges between them and their paired exit/aggregator, so theirs is empty.
   *
   * @param input first pass's {@code loop.input}; null = the output of the node feeding the loop
   * @param budget spending limit over all passes of this loop; {@link Budget#NONE} when absent
   */
  public record Loop(LoopConfig config, int maxIterations, Edge.OnExhausted onExhausted, Budget budget,
      Template input, List<Node> body) implements Body {
    public Loop {
      body = List.copyOf(body);
    }

    /**
     * The dependencies inside a nested body as the engine schedules them: a while_loop's body in listed order, a
     * loop_group's by {@code depends_on} alone (nodes that declare none start together). Empty for graph-form loops.
     */
    public List<Edge> bodyDependencies() {
      return config instanceof LoopConfig.While ? Dependencies.listedOrder(body)
          : Dependencies.dependsOnOnly(body);
    }
  }

  /** The exit and aggregator markers of graph-form loops: pass the paired loop's result through. */
  public record Marker(String pairedWith) implements Body {}
}
