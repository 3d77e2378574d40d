package dev.loopflow.core.model;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.expr.Condition;

/**
 * A dependency between two nodes. Forward edges order the graph and must be acyclic; {@code when} makes one
 * conditional and {@code branch} ties it to a router branch. Loop edges ({@code type: loop}) carry
 * {@code maxIterations} and {@code onExhausted}.
 */
public record Edge(String from, String to, Type type, Condition when, String branch, Integer maxIterations,
    OnExhausted onExhausted, Location location) {

  public enum Type { FORWARD, LOOP }

  public enum OnExhausted { FAIL, CONTINUE }

  public static Edge forward(String from, String to) {
    return new Edge(from, to, Type.FORWARD, null, null, null, null, Location.UNKNOWN);
  }

  public boolean isLoop() {
    return type == Type.LOOP;
  }
}
