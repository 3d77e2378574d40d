package dev.loopflow.core.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A {@code node.step} event (one is recorded for every model call) is decided from its fields instead of being
 * rebuilt through its JSON form: it must come out exactly as the full form makes it, learn what the full form
 * learns, and come back as the same instance when it holds nothing to mask.
 */
class RedactorNodeStepTest {
  private static final String SECRET = "q7Zp2LmX9vR4tW8nK3cY";

  /** What {@link Redactor#event} did for every step: the event's map, every value masked, read back. */
  private static Event fullForm(Redactor r, Event e) {
    Map<String, Object> m = Events.toMap(e);
    if (m.get("loops") instanceof List<?> frames) {
      List<Map<String, Object>> plain = new ArrayList<>();
      for (Object f : frames) {
        NodePosition.LoopFrame frame = (NodePosition.LoopFrame) f;
        plain.add(Map.of("loopId", frame.loopId(), "iteration", frame.iteration()));
      }
      m.put("loops", plain);
    }
    Map<String, Object> masked = new LinkedHashMap<>();
    m.forEach((k, v) -> masked.put(k, r.value(v)));
    return Events.fromMap(masked);
  }

  private static List<Object> corpus() {
    List<Object> values = new ArrayList<>(Arrays.asList(
        "plain", "", " ", "has " + SECRET, SECRET, SECRET.substring(0, 10) + "...", "… " + SECRET.substring(8),
        "Bearer abcdefgh12345678", "sk-" + "a".repeat(24), "ghp_" + "B".repeat(36), "AKIA" + "ABCDEFGHIJKLMNOP",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXRleHQ", "[redacted]", "\u0000\u202e" + SECRET, "🙂",
        1, 2.5, -7L, true, false, null, List.of(), Map.of()));
    values.add(List.of("a", SECRET, 3));
    values.add(Map.of("nested", Map.of("deeper", List.of(Map.of("k", SECRET)))));
    values.add(Map.of(SECRET, "in a key"));
    values.add(Map.of("api_key", "short"));
    values.add(Map.of("password", 12345678));
    values.add(Map.of("token", List.of("learned-token-1", "learned-token-2")));
    values.add(Map.of("authorization", "Bearer learned-bearer-value"));
    Map<Object, Object> nonStringKey = new HashMap<>();
    nonStringKey.put(42, "x");
    values.add(nonStringKey);
    return values;
  }

  private static final List<String> KEYS = List.of("phase", "reserved", "tokens", "reply", "api_key", "secret",
      "client_secret", "Authorization", SECRET, "x-" + SECRET, "model");

  private static Map<String, Object> step(Random rnd, List<Object> values) {
    Map<String, Object> m = new LinkedHashMap<>();
    int n = rnd.nextInt(4);
    for (int i = 0; i < n; i++) {
      m.put(KEYS.get(rnd.nextInt(KEYS.size())), values.get(rnd.nextInt(values.size())));
    }
    return m;
  }

  @Test
  void aStepIsMaskedAsItsFullFormMasksIt() {
    List<Object> values = corpus();
    Random rnd = new Random(7);
    for (int i = 0; i < 3_000; i++) {
      Map<String, Object> step = step(rnd, values);
      NodePosition pos = switch (rnd.nextInt(3)) {
        case 0 -> NodePosition.top("coder");
        case 1 -> new NodePosition(List.of(new NodePosition.LoopFrame("review_loop", 2)), "coder");
        default -> new NodePosition(List.of(new NodePosition.LoopFrame("loop" + SECRET, 1)), "n" + SECRET);
      };
      String runId = rnd.nextInt(10) == 0 ? "run-" + SECRET : "run-1";
      String execution = rnd.nextInt(10) == 0 ? SECRET : "exec-" + i;
      Event e = new Event.NodeStep(runId, i, Instant.ofEpochSecond(i), pos, execution, step);

      // Two redactors with the same knowledge: one through the fast decision, one through the full form.
      Redactor fast = Redactor.of(List.of(SECRET));
      Redactor full = Redactor.of(List.of(SECRET));
      Event got = fast.event(e);
      Event want = fullForm(full, e);

      String json = Events.toJson(want);
      assertThat(Events.toJson(got)).as("step %s", e).isEqualTo(json);
      // A map with a key that is not a string is rebuilt with string keys, as JSON has them.
      if (json.equals(Events.toJson(e)) && !step.containsValue(values.get(values.size() - 1))) {
        assertThat(got).as("nothing to mask in %s", e).isSameAs(e);
      }
      // What the full form learned (values under credential names), the fast decision learned too.
      for (String probe : List.of("learned-token-1", "learned-token-2", "learned-bearer-value", "12345678")) {
        assertThat(fast.text("x " + probe)).as("learned %s from %s", probe, e).isEqualTo(full.text("x " + probe));
      }
    }
  }

  @Test
  void aCredentialLearnedFromAStepIsMaskedInWhatFollows() {
    Redactor r = Redactor.of(List.of());
    Event step = new Event.NodeStep("run-1", 1, Instant.EPOCH, NodePosition.top("call"), "exec-1",
        Map.of("reply", Map.of("access_token", "tok-0123456789")));
    assertThat(Events.toJson(r.event(step))).doesNotContain("tok-0123456789");
    Event later = new Event.NodeCompleted("run-1", 2, Instant.EPOCH, NodePosition.top("call"), "llm", 1L,
        "echo tok-0123456789", 0L, 0L, null, 0L);
    assertThat(Events.toJson(r.event(later))).doesNotContain("tok-0123456789").contains("[redacted]");
  }
}
