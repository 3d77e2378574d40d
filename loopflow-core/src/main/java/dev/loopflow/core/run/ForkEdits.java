package dev.loopflow.core.run;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a fork changes at its point: state keys ({@code state.x=…}, nested as {@code state.a.b=…}), the outputs of
 * nodes that ran before the point ({@code NODE.output=…}), the input of the loop's pass ({@code loop.input=…} or
 * {@code $LOOP_PREV=…}), and run inputs ({@code --input K=V}) for what executes.
 *
 * <p>State edits apply at the fork point, before a loop decides whether to run the pass; a loop-input edit replaces
 * what the pass would have been given; an output edit replaces that node's reused result as later nodes and loop
 * conditions read it. Immutable; made with {@link #builder()} or read from {@code PATH=VALUE} texts by
 * {@link #parseSet}.
 */
public final class ForkEdits {
  /** Reads a value whole: {@code 1 2} is text, not the number 1 with something after it. */
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
  private static final Pattern KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");
  private static final Object ABSENT = new Object();
  /** The most the edits may weigh as JSON: they are journaled with the fork, and read on each of its resumes. */
  public static final int MAX_JSON_BYTES = 256 * 1024;
  /** Deeper values are refused before they could overflow a reader's stack. */
  private static final int MAX_DEPTH = 64;
  /** No edits: the fork reproduces the origin up to its point and executes the rest as it is. */
  public static final ForkEdits NONE = builder().build();

  private final Map<String, Object> state;
  private final Map<String, Object> outputs;
  private final Object loopInput;
  private final Map<String, Object> inputs;

  private ForkEdits(Builder b) {
    this.state = Collections.unmodifiableMap(new LinkedHashMap<>(b.state));
    this.outputs = Collections.unmodifiableMap(new LinkedHashMap<>(b.outputs));
    this.loopInput = b.loopInput;
    this.inputs = Collections.unmodifiableMap(new LinkedHashMap<>(b.inputs));
    int bytes;
    try {
      bytes = JSON.writeValueAsBytes(toJson()).length;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the fork's edits cannot be written as JSON: " + e.getOriginalMessage());
    }
    if (bytes > MAX_JSON_BYTES) {
      throw new IllegalArgumentException("the fork's edits are " + bytes + " bytes as JSON; the limit is "
          + MAX_JSON_BYTES);
    }
  }

  /** {@code value} when it is JSON data (text, a number, a boolean, null, lists and maps of them). */
  private static Object data(String field, Object value, int depth) {
    if (depth > MAX_DEPTH) {
      throw new IllegalArgumentException(field + " is nested deeper than " + MAX_DEPTH + " levels");
    }
    switch (value) {
      case null -> { }
      case String s -> { }
      case Boolean x -> { }
      case Number n -> {
        if (n instanceof Double d && (d.isNaN() || d.isInfinite()) || n instanceof Float f && (f.isNaN()
            || f.isInfinite())) {
          throw new IllegalArgumentException(field + " is " + n + ", which JSON cannot hold");
        }
      }
      case java.util.List<?> l -> l.forEach(v -> data(field, v, depth + 1));
      case Map<?, ?> m -> m.forEach((k, v) -> {
        if (!(k instanceof String)) {
          throw new IllegalArgumentException(field + " has a key that is not text: " + k);
        }
        data(field, v, depth + 1);
      });
      default -> throw new IllegalArgumentException(field + " is a " + value.getClass().getSimpleName()
          + "; an edit's value must be JSON data (text, a number, a boolean, null, a list or a map)");
    }
    return value;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** State edits by dotted path under {@code state} ({@code count}, {@code draft.title}). */
  public Map<String, Object> state() {
    return state;
  }

  /** New outputs by node id. */
  public Map<String, Object> outputs() {
    return outputs;
  }

  public boolean setsLoopInput() {
    return loopInput != ABSENT;
  }

  /** The loop pass's new input; meaningful only when {@link #setsLoopInput()}. */
  public Object loopInput() {
    return loopInput == ABSENT ? null : loopInput;
  }

  /** Run inputs changed for what executes. */
  public Map<String, Object> inputs() {
    return inputs;
  }

  public boolean isEmpty() {
    return state.isEmpty() && outputs.isEmpty() && !setsLoopInput() && inputs.isEmpty();
  }

  /** As plain JSON, the way a fork journals its edits so that a resumed fork applies them again. */
  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    if (!state.isEmpty()) {
      m.put("state", state);
    }
    if (!outputs.isEmpty()) {
      m.put("outputs", outputs);
    }
    if (setsLoopInput()) {
      m.put("loop_input", Collections.singletonMap("value", loopInput));
    }
    if (!inputs.isEmpty()) {
      m.put("inputs", inputs);
    }
    return m;
  }

  /** The edits {@link #toJson} wrote; what it cannot read is left out. */
  public static ForkEdits fromJson(Object json) {
    Builder b = builder();
    if (json instanceof Map<?, ?> m) {
      if (m.get("state") instanceof Map<?, ?> s) {
        s.forEach((k, v) -> b.state.put(String.valueOf(k), v));
      }
      if (m.get("outputs") instanceof Map<?, ?> o) {
        o.forEach((k, v) -> b.outputs.put(String.valueOf(k), v));
      }
      if (m.get("loop_input") instanceof Map<?, ?> li && li.containsKey("value")) {
        b.loopInput = li.get("value");
      }
      if (m.get("inputs") instanceof Map<?, ?> in) {
        in.forEach((k, v) -> b.inputs.put(String.valueOf(k), v));
      }
    }
    return b.build();
  }

  /**
   * Reads {@code PATH=VALUE} texts (the command line's {@code --set}): PATH is {@code state.KEY[.KEY...]},
   * {@code NODE.output}, {@code loop.input} or {@code $LOOP_PREV}; VALUE is read as JSON when it is JSON
   * ({@code 100}, {@code true}, {@code {"a": 1}}, {@code "quoted"}) and as text otherwise. Throws
   * {@link IllegalArgumentException} with a one-line message naming the text at fault.
   */
  public static Builder parseSet(List<String> sets, Builder into) {
    for (String s : sets) {
      int eq = s.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--set '" + cut(s) + "': write PATH=VALUE, e.g. state.count=100");
      }
      into.set(s.substring(0, eq).trim(), value(s.substring(eq + 1)));
    }
    return into;
  }

  /** {@code text} as JSON when it is a JSON value, else as text. */
  public static Object value(String text) {
    String t = text.strip();
    if (t.isEmpty()) {
      return text;
    }
    try {
      return JSON.readValue(t, Object.class);
    } catch (JsonProcessingException e) {
      return text;
    }
  }

  private static String cut(String s) {
    return s.length() > 80 ? s.substring(0, 80) + "..." : s;
  }

  /** Collects edits; each setter checks its path once, here. */
  public static final class Builder {
    private final Map<String, Object> state = new LinkedHashMap<>();
    private final Map<String, Object> outputs = new LinkedHashMap<>();
    private Object loopInput = ABSENT;
    private final Map<String, Object> inputs = new LinkedHashMap<>();

    private Builder() {}

    /**
     * One edit by its path: {@code state.KEY[.KEY...]}, {@code NODE.output}, {@code loop.input} or
     * {@code $LOOP_PREV}; throws {@link IllegalArgumentException} for any other path.
     */
    public Builder set(String path, Object value) {
      if (path.equals("loop.input") || path.equals("$LOOP_PREV")) {
        return loopInput(value);
      }
      if (path.startsWith("state.")) {
        return state(path.substring("state.".length()), value);
      }
      if (path.endsWith(".output") && KEY.matcher(path.substring(0, path.length() - ".output".length())).matches()) {
        return output(path.substring(0, path.length() - ".output".length()), value);
      }
      throw new IllegalArgumentException("edit '" + cut(path) + "': the path must be state.KEY, NODE.output, "
          + "loop.input or $LOOP_PREV");
    }

    /** Sets {@code state.PATH} ({@code PATH} dotted for nested maps) at the fork point. */
    public Builder state(String path, Object value) {
      List<String> parts = new ArrayList<>(List.of(path.split("\\.", -1)));
      for (String p : parts) {
        if (!KEY.matcher(p).matches()) {
          throw new IllegalArgumentException("state path '" + cut(path) + "': '" + cut(p) + "' is not a key");
        }
      }
      state.put(path, data("state." + path, value, 0));
      return this;
    }

    /** Replaces the output of node {@code nodeId}'s last execution before the fork point. */
    public Builder output(String nodeId, Object value) {
      if (nodeId == null || !KEY.matcher(nodeId).matches()) {
        throw new IllegalArgumentException("'" + nodeId + "' is not a node id");
      }
      outputs.put(nodeId, data(nodeId + ".output", value, 0));
      return this;
    }

    /** Replaces the input of the loop pass the fork starts at ({@code loop.input}, {@code $LOOP_PREV}). */
    public Builder loopInput(Object value) {
      this.loopInput = data("loop.input", value, 0);
      return this;
    }

    /** Changes run input {@code name} for what executes. */
    public Builder input(String name, Object value) {
      if (name == null || !KEY.matcher(name).matches()) {
        throw new IllegalArgumentException("'" + name + "' is not an input name");
      }
      inputs.put(name, data("input " + name, value, 0));
      return this;
    }

    public ForkEdits build() {
      return new ForkEdits(this);
    }
  }
}
