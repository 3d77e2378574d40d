package dev.loopflow.bench.harness;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.Map;

/** JSON lines in and out, through the Jackson the engine already carries. */
final class Json {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  static String write(Object o) {
    try {
      return MAPPER.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> read(String line) {
    try {
      return MAPPER.readValue(line, Map.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not a JSON object: " + line, e);
    }
  }
}
