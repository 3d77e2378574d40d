package dev.loopflow.core.event;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.loopflow.core.model.NodePosition;
import java.lang.reflect.RecordComponent;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The JSON form of events (JSONL files, the journal): {@code type} first, then the record's fields in snake_case,
 * like every other JSON loopflow writes ({@code input_preview}, {@code iterations_run}, {@code exit_reason} are
 * 000's names). {@code loop.iterate} keeps 001's own field names ({@code edgeFrom}, {@code edgeTo},
 * {@code maxIterations}), which its users subscribe to.
 */
public final class Events {
  private static final ObjectMapper MAPPER = JsonMapper.builder().addModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).build();

  private Events() {}

  public static Map<String, Object> toMap(Event e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("type", e.type());
    for (RecordComponent c : e.getClass().getRecordComponents()) {
      try {
        Object v = c.getAccessor().invoke(e);
        if (v instanceof NodePosition p) {
          m.put("node", p.nodeId());
          m.put("path", p.path());
          if (!p.loops().isEmpty()) {
            m.put("loops", p.loops());
          }
        } else {
          String name = e instanceof Event.LoopIterate ? c.getName() : snake(c.getName());
          m.put(name, v instanceof java.time.Instant i ? i.toString() : v);
        }
      } catch (ReflectiveOperationException ex) {
        throw new IllegalStateException(ex);
      }
    }
    return m;
  }

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

  public static String toJson(Event e) {
    try {
      return MAPPER.writeValueAsString(toMap(e));
    } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
      throw new IllegalStateException(ex);
    }
  }
}
