package dev.loopflow.core.event;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.loopflow.core.error.NodePosition;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The JSON form of events (JSONL files, the journal): {@code type} first, then the record's fields in snake_case,
 * like every other JSON loopflow writes ({@code input_preview}, {@code iterations_run}, {@code exit_reason}).
 * Every event carries {@code run_id}, {@code seq} and {@code at} under those names. {@code loop.iterate} keeps the
 * camelCase names of its loop-edge fields ({@code edgeFrom}, {@code edgeTo}, {@code maxIterations}), which its
 * subscribers read; nothing else is camelCase.
 *
 * <p>{@link #fromMap} and {@link #fromJson} read that form back, so that a stored journal can return events. They
 * must stay the exact inverse of {@link #toMap} and {@link #toJson} for every permitted {@link Event} record. The
 * readers are derived from {@link Class#getPermittedSubclasses()} and the record components, never listed by hand,
 * so a new event is readable as soon as it is declared; one with a component type this class cannot read, or whose
 * keys would clash, fails when the readers are built (on the first read, and in this module's tests). {@code path} is
 * derived from {@code node} and {@code loops} and is not read. Keys a reader does not know are ignored, so rows
 * written by a newer version stay readable.
 */
public final class Events {
  /** The mapper of toJson and fromJson, made on first use: the journal writes events through fields(). */
  private static final class Mapper {
    static final ObjectMapper MAPPER = JsonMapper.builder().addModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).build();
    static final TypeReference<Map<String, Object>> JSON_OBJECT = new TypeReference<>() {};
  }

  /**
   * The readers, built when an event is first read back. Building them constructs every event class once by
   * reflection, which a process that only writes events (most commands) never needs; a test builds them all, so an
   * event class whose components cannot be read fails the build rather than a first read.
   */
  private static final class Readers {
    static final Map<String, Reader> BY_TYPE = readers();
  }

  private Events() {}

  /** One event class's components in declaration order: key and accessor, looked up once per class. */
  private record Component(String key, MethodHandle accessor) {}

  /*
   * getRecordComponents() and getAccessor() return new objects on every call, and invoking a fresh Method builds a
   * new accessor each time: that was most of the cost of journaling an event. The handles are resolved once.
   */
  private static final ClassValue<List<Component>> COMPONENTS = new ClassValue<>() {
    @Override
    protected List<Component> computeValue(Class<?> type) {
      List<Component> out = new ArrayList<>();
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      for (RecordComponent c : type.getRecordComponents()) {
        try {
          out.add(new Component(key(type, c), lookup.unreflect(c.getAccessor())
              .asType(MethodType.methodType(Object.class, Object.class))));
        } catch (IllegalAccessException ex) {
          throw new IllegalStateException(ex);
        }
      }
      return List.copyOf(out);
    }
  };

  /** Receives an event's JSON fields in the order they are written. */
  @FunctionalInterface
  public interface FieldSink {
    void field(String key, Object value) throws IOException;
  }

  /**
   * Hands {@code sink} the event's fields, in order, as {@link #toMap} holds them: {@code type}, then each record
   * component (a position as {@code node}, {@code path} and, when nested, {@code loops}; an instant as its ISO-8601
   * text, {@link Instant#toString()}'s). The one place that decides what an event's JSON holds; writers stream from
   * it without building a map. Every key is a Java identifier (letters, digits and underscores): writers may put it
   * into JSON without escaping it.
   */
  public static void fields(Event e, FieldSink sink) throws IOException {
    sink.field("type", e.type());
    // The three events of every loop pass are written by hand: a method handle call runs as a chain of interpreted
    // frames until the JIT compiles it, and short runs are mostly interpreted. What they write must stay what the
    // record components give (EventsJsonTest compares the two on every shape of these events).
    if (e instanceof Event.NodeCompleted c) {
      head(sink, c.runId(), c.seq(), c.at(), c.node());
      sink.field("kind", c.kind());
      sink.field("duration_millis", c.durationMillis());
      sink.field("output_preview", c.outputPreview());
      sink.field("input_tokens", c.inputTokens());
      sink.field("output_tokens", c.outputTokens());
      sink.field("cost_usd", c.costUsd());
      sink.field("output_bytes", c.outputBytes());
    } else if (e instanceof Event.NodeStarted s) {
      head(sink, s.runId(), s.seq(), s.at(), s.node());
      sink.field("kind", s.kind());
      sink.field("attempt", s.attempt());
    } else if (e instanceof Event.LoopIteration i) {
      head(sink, i.runId(), i.seq(), i.at(), i.node());
      sink.field("construct", i.construct());
      sink.field("iteration", i.iteration());
      sink.field("index", i.index());
      sink.field("max", i.max());
      sink.field("total", i.total());
      sink.field("input_preview", i.inputPreview());
      sink.field("condition_result", i.conditionResult());
    } else {
      components(e, sink);
    }
  }

  private static void head(FieldSink sink, String runId, long seq, Instant at, NodePosition node) throws IOException {
    sink.field("run_id", runId);
    sink.field("seq", seq);
    sink.field("at", at == null ? null : InstantText.of(at));
    position(sink, node);
  }

  private static void position(FieldSink sink, NodePosition p) throws IOException {
    sink.field("node", p.nodeId());
    sink.field("path", p.path());
    if (!p.loops().isEmpty()) {
      sink.field("loops", p.loops());
    }
  }

  /** The fields after {@code type}, read from the record's components: every event class but the three above. */
  static void components(Event e, FieldSink sink) throws IOException {
    for (Component c : COMPONENTS.get(e.getClass())) {
      Object v;
      try {
        v = c.accessor().invokeExact((Object) e);
      } catch (RuntimeException | Error ex) {
        throw ex;
      } catch (Throwable ex) {
        throw new IllegalStateException(ex);
      }
      if (v instanceof NodePosition p) {
        position(sink, p);
      } else {
        sink.field(c.key(), v instanceof Instant i ? InstantText.of(i) : v);
      }
    }
  }

  public static Map<String, Object> toMap(Event e) {
    Map<String, Object> m = new LinkedHashMap<>();
    try {
      fields(e, m::put);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
    return m;
  }

  /** The key a component is written under; the one rule both directions follow. */
  private static String key(Class<?> eventClass, RecordComponent c) {
    return eventClass == Event.LoopIterate.class && LOOP_EDGE_FIELDS.contains(c.getName()) ? c.getName()
        : snake(c.getName());
  }

  /** The loop-edge fields {@code loop.iterate} writes in camelCase, as its subscribers read them. */
  private static final Set<String> LOOP_EDGE_FIELDS = Set.of("edgeFrom", "edgeTo", "maxIterations");

  /**
   * Keys an older version wrote for a component, read when the current key is absent: {@code loop.iterate} once
   * wrote {@code runId}, and journals written then must stay readable.
   */
  private static final Map<String, String> LEGACY_KEYS = Map.of("run_id", "runId");

  static String snake(String camel) {
    StringBuilder sb = new StringBuilder(camel.length() + 4);
    for (int i = 0; i < camel.length(); i++) {
      char ch = camel.charAt(i);
      if (Character.isUpperCase(ch)) {
        sb.append('_').append(Character.toLowerCase(ch));
      } else {
        sb.append(ch);
      }
    }
    return sb.toString();
  }

  /** {@link #toMap}'s JSON, written field by field without the map. */
  public static String toJson(Event e) {
    StringWriter out = new StringWriter(256);
    try (JsonGenerator g = Mapper.MAPPER.createGenerator(out)) {
      g.writeStartObject();
      fields(e, (key, value) -> {
        g.writeFieldName(key);
        g.writeObject(value);
      });
      g.writeEndObject();
    } catch (IOException ex) {
      throw new IllegalStateException(ex);
    }
    return out.toString();
  }

  /**
   * The event {@link #toMap} wrote. Also accepts the same map as parsed from JSON (loop frames as maps, any
   * {@link Number} for a numeric field).
   *
   * @throws IllegalArgumentException if {@code type} is missing or unknown, or a field has the wrong JSON type
   */
  public static Event fromMap(Map<String, ?> m) {
    if (!(m.get("type") instanceof String type)) {
      throw new IllegalArgumentException("event has no type: " + m);
    }
    Reader reader = Readers.BY_TYPE.get(type);
    if (reader == null) {
      throw new IllegalArgumentException("unknown event type: " + type);
    }
    return reader.read(m);
  }

  /**
   * The event {@link #toJson} wrote.
   *
   * @throws IllegalArgumentException if {@code json} is not a JSON object, or as {@link #fromMap}
   */
  public static Event fromJson(String json) {
    Map<String, Object> m;
    try {
      m = Mapper.MAPPER.readValue(json, Mapper.JSON_OBJECT);
    } catch (JsonProcessingException ex) {
      throw new IllegalArgumentException("not an event JSON object: " + ex.getOriginalMessage(), ex);
    }
    if (m == null) {
      throw new IllegalArgumentException("not an event JSON object: " + json);
    }
    return fromMap(m);
  }

  private static Map<String, Reader> readers() {
    Map<String, Reader> byType = new HashMap<>();
    for (Class<?> c : Event.class.getPermittedSubclasses()) {
      Reader reader = Reader.of(c.asSubclass(Event.class));
      if (byType.put(reader.type(), reader) != null) {
        throw new IllegalStateException("two events have type " + reader.type());
      }
    }
    return Map.copyOf(byType);
  }

  /** Reads one record class: its canonical constructor and, per component, how to get the argument from a map. */
  private record Reader(String type, Constructor<? extends Event> constructor,
      List<Function<Map<String, ?>, Object>> args) {
    static Reader of(Class<? extends Event> c) {
      RecordComponent[] components = c.getRecordComponents();
      Constructor<? extends Event> constructor;
      Event blank;
      try {
        constructor = c.getDeclaredConstructor(Arrays.stream(components).map(RecordComponent::getType)
            .toArray(Class<?>[]::new));
        blank = constructor.newInstance(Arrays.stream(components).map(rc -> zero(rc.getType())).toArray());
      } catch (ReflectiveOperationException ex) {
        throw new IllegalStateException("cannot construct " + c.getName() + " to learn its type", ex);
      }
      String type = blank.type();
      Set<String> keys = new HashSet<>(List.of("type"));
      List<Function<Map<String, ?>, Object>> args = new ArrayList<>();
      for (RecordComponent rc : components) {
        if (rc.getType() == NodePosition.class) {
          claim(keys, type, "node", "path", "loops");
          args.add(positionReader(type));
        } else {
          String key = key(c, rc);
          claim(keys, type, key);
          Function<Object, Object> convert = converter(type, key, rc.getType());
          String legacy = LEGACY_KEYS.get(key);
          args.add(legacy == null ? m -> convert.apply(m.get(key))
              : m -> convert.apply(m.containsKey(key) ? m.get(key) : m.get(legacy)));
        }
      }
      return new Reader(type, constructor, List.copyOf(args));
    }

    Event read(Map<String, ?> m) {
      Object[] values = new Object[args.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = args.get(i).apply(m);
      }
      try {
        return constructor.newInstance(values);
      } catch (InvocationTargetException ex) {
        throw new IllegalArgumentException("invalid " + type + " event: " + ex.getCause().getMessage(), ex.getCause());
      } catch (ReflectiveOperationException ex) {
        throw new IllegalStateException(ex);
      }
    }
  }

  private static void claim(Set<String> keys, String type, String... wanted) {
    for (String k : wanted) {
      if (!keys.add(k)) {
        throw new IllegalStateException(type + " would write key " + k + " twice");
      }
    }
  }

  /** The value a field of this type holds when nothing set it: null, 0 or false. */
  private static Object zero(Class<?> type) {
    return Array.get(Array.newInstance(type, 1), 0);
  }

  private static Function<Object, Object> converter(String type, String key, Class<?> target) {
    Function<Object, Object> nonNull;
    if (target == String.class) {
      nonNull = v -> expect(type, key, v, String.class);
    } else if (target == Instant.class) {
      nonNull = v -> {
        try {
          return InstantText.parse(expect(type, key, v, String.class));
        } catch (DateTimeParseException ex) {
          throw new IllegalArgumentException(type + "." + key + ": not an ISO-8601 instant: " + v, ex);
        }
      };
    } else if (target == long.class || target == Long.class) {
      nonNull = v -> expect(type, key, v, Number.class).longValue();
    } else if (target == int.class || target == Integer.class) {
      nonNull = v -> {
        long l = expect(type, key, v, Number.class).longValue();
        if (l != (int) l) {
          throw new IllegalArgumentException(type + "." + key + ": " + v + " does not fit an int");
        }
        return (int) l;
      };
    } else if (target == double.class || target == Double.class) {
      nonNull = v -> expect(type, key, v, Number.class).doubleValue();
    } else if (target == boolean.class || target == Boolean.class) {
      nonNull = v -> expect(type, key, v, Boolean.class);
    } else if (target == Map.class) {
      nonNull = v -> expect(type, key, v, Map.class);
    } else {
      throw new IllegalStateException(type + "." + key + " has type " + target.getName() + ", which cannot be read");
    }
    Object absent = zero(target);
    return v -> v == null ? absent : nonNull.apply(v);
  }

  private static <T> T expect(String type, String key, Object v, Class<T> wanted) {
    if (!wanted.isInstance(v)) {
      throw new IllegalArgumentException(type + "." + key + ": expected " + wanted.getSimpleName() + ", got "
          + v.getClass().getSimpleName() + " " + v);
    }
    return wanted.cast(v);
  }

  /**
   * Reads the {@code node} and {@code loops} keys {@code toMap} wrote for a {@link NodePosition}. The position is
   * null only when {@code toMap} wrote no position: neither a node id, nor loops, nor a path.
   */
  private static Function<Map<String, ?>, Object> positionReader(String type) {
    Function<Object, Object> nodeId = converter(type, "node", String.class);
    Function<Object, Object> loopId = converter(type, "loops.loopId", String.class);
    Function<Object, Object> iteration = converter(type, "loops.iteration", int.class);
    return m -> {
      Object node = m.get("node");
      Object loops = m.get("loops");
      if (node == null && loops == null && !m.containsKey("path")) {
        return null;
      }
      List<NodePosition.LoopFrame> frames = new ArrayList<>();
      if (loops != null) {
        for (Object f : expect(type, "loops", loops, List.class)) {
          if (f instanceof NodePosition.LoopFrame frame) {
            frames.add(frame);
          } else {
            Map<?, ?> frame = expect(type, "loops", f, Map.class);
            frames.add(new NodePosition.LoopFrame((String) loopId.apply(frame.get("loopId")),
                (int) iteration.apply(frame.get("iteration"))));
          }
        }
      }
      return new NodePosition(frames, (String) nodeId.apply(node));
    };
  }

  /**
   * The position an event is about (a node's execution, a loop instance), or null for the events about the whole
   * run. A loop's {@code loop.iteration} is about the loop instance, not about the pass it starts.
   */
  public static NodePosition position(Event e) {
    return switch (e) {
      case Event.NodeStarted x -> x.node();
      case Event.NodeCompleted x -> x.node();
      case Event.NodeFailed x -> x.node();
      case Event.NodeSkipped x -> x.node();
      case Event.NodeCancelled x -> x.node();
      case Event.NodeRetrying x -> x.node();
      case Event.RouterSelected x -> x.node();
      case Event.LlmCalled x -> x.node();
      case Event.LoopStarted x -> x.node();
      case Event.LoopIteration x -> x.node();
      case Event.LoopIterate x -> x.node();
      case Event.LoopCompleted x -> x.node();
      case Event.RunPaused x -> x.node();
      case Event.NodeStep x -> x.node();
      case Event.NodeStreaming x -> x.node();
      case Event.StageValidationRetry x -> x.node();
      default -> null;
    };
  }
}
