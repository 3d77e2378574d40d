package dev.loopflow.store.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.run.RunError;
import dev.loopflow.core.spi.Usage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * JSON columns in and out. What arrives here was masked by the run's {@link dev.loopflow.core.secrets.Redactor}
 * before it reached the store, so the codec writes it as it is.
 */
final class Codec {
  private static final ObjectMapper JSON = JournalJson.JSON;
  private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {};
  private static final TypeReference<List<Map<String, Object>>> LIST = new TypeReference<>() {};
  private static final TypeReference<LinkedHashMap<String, List<Map<String, String>>>> SESSIONS =
      new TypeReference<>() {};

  Codec() {}

  String json(Object value) {
    if (value == null) {
      return null;
    }
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot write as JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** An event's document, streamed from its record (see JournalJson). */
  Encoded event(Event e) {
    return JournalJson.event(e);
  }

  static Event event(String json) {
    return Events.fromJson(json);
  }

  /** A document ready to write: its JSON, holding references to {@code parts} (hash to the part's JSON). */
  record Encoded(String json, Map<String, String> parts) {}

  /** Moves the value's large parts out (see ValueRefs); null for null. The value arrives already masked. */
  Encoded encode(Object value) {
    if (value == null) {
      return new Encoded(null, Map.of());
    }
    return JournalJson.document(value);
  }

  /** JSON as written, without redaction: for values redacted already. */
  static String plainJson(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot write as JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** A document read back, with its parts put back ({@code part}: hash to the part, parsed). */
  static Object decode(String json, Function<String, Object> part) {
    Object v = value(json);
    return ValueRefs.mayHoldRefs(json) ? ValueRefs.join(v, part) : v;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> decodeMap(String json, Function<String, Object> part) {
    return (Map<String, Object>) decode(json, part);
  }

  static Map<String, List<Map<String, String>>> decodeSessions(String json,
      Function<String, Object> part) {
    return json == null ? null : JSON.convertValue(decode(json, part), SESSIONS);
  }

  static Object value(String json) {
    if (json == null) {
      return null;
    }
    try {
      return JSON.readValue(json, Object.class);
    } catch (JsonProcessingException e) {
      throw StoreFailures.of("corrupt JSON in the journal: " + e.getOriginalMessage(), e);
    }
  }

  static Map<String, Object> map(String json) {
    if (json == null) {
      return null;
    }
    try {
      return JSON.readValue(json, MAP);
    } catch (JsonProcessingException e) {
      throw StoreFailures.of("corrupt JSON in the journal: " + e.getOriginalMessage(), e);
    }
  }

  static Map<String, List<Map<String, String>>> sessions(String json) {
    if (json == null) {
      return null;
    }
    try {
      return JSON.readValue(json, SESSIONS);
    } catch (JsonProcessingException e) {
      throw StoreFailures.of("corrupt JSON in the journal: " + e.getOriginalMessage(), e);
    }
  }

  String usage(Usage u) {
    if (u == null) {
      return null;
    }
    return JournalJson.usage(u);
  }

  static Usage usage(String json) {
    Map<String, Object> m = map(json);
    if (m == null) {
      return Usage.NONE;
    }
    Usage u = new Usage(num(m.get("input_tokens")).longValue(), num(m.get("output_tokens")).longValue(),
        m.get("cost_usd") == null ? null : num(m.get("cost_usd")).doubleValue(), num(m.get("llm_calls")).intValue(),
        num(m.get("unpriced_calls")).intValue());
    return u.equals(Usage.NONE) ? Usage.NONE : u;
  }

  String error(RunError e) {
    if (e == null) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("code", e.code());
    m.put("message", e.message());
    m.put("node", e.node());
    m.put("path", e.path());
    m.put("details", e.details());
    return json(m);
  }

  @SuppressWarnings("unchecked")
  static RunError error(String json) {
    Map<String, Object> m = map(json);
    if (m == null) {
      return null;
    }
    return new RunError(ErrorCode.of((String) m.get("code")), (String) m.get("message"), (String) m.get("node"),
        (String) m.get("path"), (Map<String, Object>) m.get("details"));
  }

  String loops(NodePosition p) {
    if (p.loops().isEmpty()) {
      return null;
    }
    return JournalJson.loops(p);
  }

  static NodePosition position(String nodeId, String loopsJson) {
    if (loopsJson == null) {
      return NodePosition.top(nodeId);
    }
    try {
      List<NodePosition.LoopFrame> frames = new ArrayList<>();
      for (Map<String, Object> f : JSON.readValue(loopsJson, LIST)) {
        frames.add(new NodePosition.LoopFrame((String) f.get("loop"), num(f.get("iteration")).intValue()));
      }
      return new NodePosition(frames, nodeId);
    } catch (JsonProcessingException e) {
      throw StoreFailures.of("corrupt loop path in the journal: " + e.getOriginalMessage(), e);
    }
  }

  private static Number num(Object o) {
    return o instanceof Number n ? n : 0;
  }
}
