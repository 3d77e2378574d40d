package dev.loopflow.core.internal.exec;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/*
 * Design notes.
 *
 * What a node's templates, conditions and program read: the results of the nodes visible from its frame (innermost
 * frame winning), then the run's own variables (input, flow, state, env, run, loop, pipeline), which win over a
 * node of the same name. It is made for every node execution and every loop condition, and most readers look up
 * one or two names (state, input), so it is not built as a map: it holds the frames' result snapshots and the
 * variables, and answers get() from them. Anything that needs the whole map (iteration, size, equality, Jinjava's
 * context) gets it built once, exactly as an eagerly built scope was: a HashMap filled outermost frame first, then
 * the variables, so its iteration order is the same.
 *
 * What must stay true: a scope is a snapshot. Frames keep their results copy-on-write (Frame.snapshot() is never
 * changed afterwards), the state is a snapshot shared until the next write, and the variables are immutable, so a
 * node completing after this scope was made is not seen by it, as before. Read-only, like the map it replaces.
 */
final class NodeScope extends AbstractMap<String, Object> {
  /** Result snapshots of the frames, innermost first. */
  private final Map<String, Map<String, Object>>[] frames;
  private final Map<String, Object> input;
  private final Map<String, Object> flow;
  private final Map<String, Object> state;
  private final Map<String, Object> env;
  private final Map<String, Object> run;
  /** Null when the node is in no loop. */
  private final Map<String, Object> loop;
  /** Null unless the workflow is a pipeline. */
  private final Object pipeline;
  private Map<String, Object> whole;

  @SuppressWarnings("unchecked")
  NodeScope(Frame frame, Map<String, Object> input, Map<String, Object> flow, Map<String, Object> state,
      Map<String, Object> env, Map<String, Object> run, Map<String, Object> loop, Object pipeline) {
    int depth = 0;
    for (Frame f = frame; f != null; f = f.parent) {
      depth++;
    }
    frames = new Map[depth];
    int i = 0;
    for (Frame f = frame; f != null; f = f.parent) {
      frames[i++] = f.snapshot();
    }
    this.input = input;
    this.flow = flow;
    this.state = state;
    this.env = env;
    this.run = run;
    this.loop = loop;
    this.pipeline = pipeline;
  }

  /** Builds of the whole map so far in this JVM; read by a test that pins the laziness. */
  static final AtomicLong WHOLE_MAPS_BUILT = new AtomicLong();

  @Override
  public Object get(Object key) {
    if (!(key instanceof String k)) {
      return null;
    }
    Object v = variable(k);
    if (v != null) {
      return v;
    }
    for (Map<String, Map<String, Object>> f : frames) {
      Map<String, Object> r = f.get(k);
      if (r != null) {
        return r;
      }
    }
    return null;
  }

  @Override
  public boolean containsKey(Object key) {
    return get(key) != null;
  }

  /** The run's variable named {@code k}, or null when there is none of that name here. */
  private Object variable(String k) {
    return switch (k) {
      case "input" -> input;
      case "flow" -> flow;
      case "state" -> state;
      case "env" -> env;
      case "run" -> run;
      case "loop" -> loop;
      case "pipeline" -> pipeline;
      default -> null;
    };
  }

  @Override
  public Set<Entry<String, Object>> entrySet() {
    return whole().entrySet();
  }

  @Override
  public int size() {
    return whole().size();
  }

  /** The whole map, built once, the way an eager scope was built (so it iterates in the same order). */
  private synchronized Map<String, Object> whole() {
    Map<String, Object> w = whole;
    if (w == null) {
      Map<String, Object> m = new HashMap<>(32);
      for (int i = frames.length - 1; i >= 0; i--) {
        m.putAll(frames[i]);
      }
      m.put("input", input);
      m.put("flow", flow);
      m.put("state", state);
      m.put("env", env);
      m.put("run", run);
      if (loop != null) {
        m.put("loop", loop);
      }
      if (pipeline != null) {
        m.put("pipeline", pipeline);
      }
      w = Collections.unmodifiableMap(m);
      whole = w;
      WHOLE_MAPS_BUILT.incrementAndGet();
    }
    return w;
  }

  @Override
  public Object put(String key, Object value) {
    throw new UnsupportedOperationException("a node's scope is read-only");
  }
}
