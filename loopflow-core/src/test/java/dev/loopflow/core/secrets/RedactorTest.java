package dev.loopflow.core.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunError;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RedactorTest {
  private static final String SECRET = "q7Zp2LmX9vR4tW8nK3cY";

  @Test
  void mapKeyHoldingASecretIsMasked_bugMapKeysNeverRedacted() {
    Redactor r = Redactor.of(List.of(SECRET));
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put(SECRET + "-suffix", 1);
    inner.put("ok", List.of(Map.of("deeper " + SECRET, "x")));
    Map<String, Object> value = Map.of("outer", Map.of(SECRET, inner));

    Object masked = r.value(value);

    assertThat(String.valueOf(masked)).doesNotContain(SECRET).contains("[redacted]-suffix")
        .contains("deeper [redacted]");
  }

  @Test
  void twoKeysMaskedAlikeKeepBothEntries() {
    Redactor r = Redactor.of(List.of(SECRET, "Zx8Yw7Vu6Ts5"));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(SECRET, 1);
    m.put("Zx8Yw7Vu6Ts5", 2);

    @SuppressWarnings("unchecked")
    Map<String, Object> out = (Map<String, Object>) r.value(m);

    assertThat(out).containsExactly(Map.entry("[redacted]", 1), Map.entry("[redacted] (2)", 2));
  }

  @Test
  void aValueFoundUnderACredentialKeyIsMaskedEverywhereAfter() {
    Redactor r = Redactor.of(List.of());
    Object first = r.value(Map.of("body", Map.of("access_token", "opaque-value-1234")));
    String later = r.text("the token was opaque-value-1234, keep it safe");

    assertThat(String.valueOf(first)).doesNotContain("opaque-value-1234");
    assertThat(later).isEqualTo("the token was [redacted], keep it safe");
  }

  @Test
  void theTokenOfABearerValueIsLearnedToo() {
    Redactor r = Redactor.of(List.of());
    r.value(Map.of("Authorization", "Bearer opaque0123opaque"));
    assertThat(r.text("token opaque0123opaque")).isEqualTo("token [redacted]");
  }

  @Test
  void shortValuesAreMaskedByNameOnly() {
    Redactor r = Redactor.of(List.of());
    Object out = r.value(Map.of("password", "abc", "note", "abc is short"));
    assertThat(out).isEqualTo(Map.of("password", "[redacted]", "note", "abc is short"));
  }

  @Test
  void numbersUnderCredentialKeysAreMaskedBooleansAndNestedMapsAreNot() {
    Redactor r = Redactor.of(List.of());
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("pin_password", 12345678);
    m.put("has_password", true);
    m.put("get_token", Map.of("status", "completed"));
    m.put("secrets", List.of("one-secret-value", Map.of("name", "visible")));
    assertThat(r.value(m)).isEqualTo(Map.of("pin_password", "[redacted]", "has_password", true, "get_token",
        Map.of("status", "completed"), "secrets", List.of("[redacted]", Map.of("name", "visible"))));
  }

  @Test
  void nothingToMaskReturnsTheSameInstances() {
    Redactor r = Redactor.of(List.of(SECRET));
    Map<String, Object> m = Map.of("a", List.of("x", Map.of("b", 1)));
    assertThat(r.value(m)).isSameAs(m);
    Event e = new Event.NodeCompleted("run_1", 1, Instant.EPOCH, NodePosition.top("n"), "shell", 1, "fine", 0, 0,
        null, 4);
    assertThat(r.event(e)).isSameAs(e);
  }

  @Test
  void previewsAndMessagesOfEventsAreMaskedByValue_bugPreviewsCarrySecrets() {
    Redactor r = Redactor.of(List.of(SECRET));
    Event completed = new Event.NodeCompleted("run_1", 1, Instant.EPOCH, NodePosition.top("n"), "shell", 1,
        "got " + SECRET, 0, 0, null, 10);
    Event failed = new Event.NodeFailed("run_1", 2, Instant.EPOCH, NodePosition.top("n"), "shell", 1,
        "node_failed", "command exited with status 1: " + SECRET, false);
    Event started = new Event.RunStarted("run_1", 3, Instant.EPOCH, "wf", Map.of(SECRET, SECRET));

    assertThat(((Event.NodeCompleted) r.event(completed)).outputPreview()).isEqualTo("got [redacted]");
    assertThat(((Event.NodeFailed) r.event(failed)).message()).endsWith(": [redacted]");
    assertThat(((Event.RunStarted) r.event(started)).inputs()).isEqualTo(Map.of("[redacted]", "[redacted]"));
  }

  @Test
  void aKnownValueCutByAnEllipsisIsMaskedAtEitherEnd() {
    Redactor r = Redactor.of(List.of(SECRET));
    assertThat(r.text("...p2LmX9vR4tW8nK3cY and more")).isEqualTo("...[redacted] and more");
    assertThat(r.text("output was q7Zp2LmX9...")).isEqualTo("output was [redacted]...");
    assertThat(r.text("output was q7Zp2LmX9…")).isEqualTo("output was [redacted]…");
    assertThat(r.text("an ordinary cut...")).isEqualTo("an ordinary cut...");
  }

  @Test
  void errorsAreMaskedInMessageAndDetails() {
    Redactor r = Redactor.of(List.of(SECRET));
    RunError e = r.error(new RunError(dev.loopflow.core.error.ErrorCode.NODE_FAILED, "boom " + SECRET, "n", null, Map.of("k", SECRET)));
    assertThat(e.message()).isEqualTo("boom [redacted]");
    assertThat(e.details()).isEqualTo(Map.of("k", "[redacted]"));
  }

  @Test
  void environmentVariablesNamedAsCredentialsAreSecretsOfEightCharactersOrMore() {
    Redactor r = Redactor.ofEnvironment(Map.of("MY_API_KEY", SECRET, "SHORT_TOKEN", "abc", "HOME", "/home/someone",
        "XAUTHORITY", "/run/user/1000/xauth_file"));
    assertThat(r.text(SECRET + " abc /home/someone /run/user/1000/xauth_file"))
        .isEqualTo("[redacted] abc /home/someone /run/user/1000/xauth_file");
  }

  @Test
  void aRunLearnsCredentialsFromItsSourceItsInputsAndItsEnvironment() {
    Loopflow engine = Loopflow.create();
    Workflow wf = engine.parse("""
        input:
          pin: {type: string, writeOnly: true}
          api_token: string
          topic: string
          note: string
        nodes:
          - id: call
            type: http
            url: "https://example.invalid/{{ input.note }}"
            headers: {Authorization: "Bearer {{ input.topic }}", X-Api-Key: "hard-coded-key-123"}
        """, "wf.yaml");
    Redactor r = Redactor.forRun(Map.of("CI_JOB_TOKEN", "ci-token-value-1"), wf,
        Map.of("pin", "pin-value-999", "api_token", "input-token-77", "topic", "topic-as-token", "note",
            "not a secret"));

    assertThat(r.text("hard-coded-key-123 pin-value-999 input-token-77 ci-token-value-1 topic-as-token not a secret"))
        .isEqualTo("[redacted] [redacted] [redacted] [redacted] [redacted] not a secret");
    // The journal records rendered templates under their source text: the header template's value is masked.
    assertThat(r.value(Map.of("Bearer {{ input.topic }}", "Bearer rendered-0123456789", "{{ input.note }}", "x")))
        .isEqualTo(Map.of("Bearer {{ input.topic }}", "[redacted]", "{{ input.note }}", "x"));
    assertThat(r.value(Map.of("pin", "short", "topic", "short", "note", "short")))
        .isEqualTo(Map.of("pin", "[redacted]", "topic", "[redacted]", "note", "short"));
  }

  /** Every event type, with the secret in exactly one of its text-bearing fields, for each such field. */
  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> eventFields() throws Exception {
    List<org.junit.jupiter.params.provider.Arguments> out = new java.util.ArrayList<>();
    for (Class<?> type : Event.class.getPermittedSubclasses()) {
      java.lang.reflect.RecordComponent[] components = type.getRecordComponents();
      for (int carrier = 0; carrier < components.length; carrier++) {
        Class<?> t = components[carrier].getType();
        if (t != String.class && t != Map.class && t != NodePosition.class) {
          continue;
        }
        Object[] args = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
          args[i] = fieldValue(components[i].getType(), i == carrier);
        }
        Event e = (Event) type.getDeclaredConstructor(java.util.Arrays.stream(components)
            .map(java.lang.reflect.RecordComponent::getType).toArray(Class<?>[]::new)).newInstance(args);
        out.add(org.junit.jupiter.params.provider.Arguments.of(type.getSimpleName() + "." + components[carrier]
            .getName(), e));
      }
    }
    return out.stream();
  }

  private static Object fieldValue(Class<?> t, boolean secret) {
    if (t == String.class) {
      return secret ? "has " + SECRET : "plain";
    }
    if (t == Map.class) {
      return secret ? Map.of("k", SECRET) : Map.of("k", "v");
    }
    if (t == NodePosition.class) {
      return secret ? new NodePosition(List.of(new NodePosition.LoopFrame("loop" + SECRET, 1)), "n")
          : NodePosition.top("n");
    }
    if (t == Instant.class) {
      return Instant.EPOCH;
    }
    if (t == Double.class || t == Boolean.class || t == Integer.class || t == Long.class) {
      return null;
    }
    return java.lang.reflect.Array.get(java.lang.reflect.Array.newInstance(t, 1), 0);
  }

  @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.MethodSource("eventFields")
  void aCredentialInAnyTextFieldOfAnyEventIsMasked(String field, Event e) {
    Redactor r = Redactor.of(List.of(SECRET));
    assertThat(dev.loopflow.core.event.Events.toJson(r.event(e))).contains("[redacted]").doesNotContain(SECRET);
  }
}
