package dev.loopflow.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link Events#toJson} streams the fields; it must write exactly what serializing {@link Events#toMap} writes. */
class EventsStreamedJsonTest {
  private static final ObjectMapper MAPPER = JsonMapper.builder().addModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).build();

  /** Every sample event, and each again with awkward text and nested values in its map fields. */
  static List<Event> events() {
    Map<String, Object> odd = new LinkedHashMap<>();
    odd.put("\u0000nul", "\u0000starts with NUL \"quoted\" \\ é 😀");
    odd.put("when", java.time.Instant.parse("2026-01-02T03:04:05Z"));
    odd.put("nested", List.of(Map.of("k", 1.5), List.of(), Map.of()));
    odd.put("none", null);
    java.util.ArrayList<Event> out = new java.util.ArrayList<>(EventsJsonTest.samples());
    out.add(new Event.RunStarted("r", 1, java.time.Instant.EPOCH, "w\n\t", odd));
    out.add(new Event.NodeStep("r", 2, java.time.Instant.EPOCH, null, "e", odd));
    return out;
  }

  @ParameterizedTest
  @MethodSource("events")
  void theStreamedJsonIsTheMapsJson(Event e) throws Exception {
    assertThat(Events.toJson(e)).isEqualTo(MAPPER.writeValueAsString(Events.toMap(e)));
  }
}
