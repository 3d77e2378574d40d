package dev.loopflow.llm;

import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.provider.ChatMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The messages an llm or agent execution opens with, journaled as one step of type {@code request}:
 * {@code {"type": "request", "system", "messages": [{"role", "content", "cut"?}], "omitted"?}}. It is what a run
 * viewer shows as the call's transcript (the reply and an agent's turns are journaled already: the result, the
 * {@code model} and {@code tool} steps). It is written for the reader only: no resume reads it back, and the agent's
 * replay skips steps of other types, so a run journaled before it existed resumes the same way. So it is noted, not
 * recorded: it goes to the store with the execution's next durable write (a real call's reservation, or its journal
 * row), never in a write of its own.
 *
 * <p>Bounded like the other values the journal keeps per step: each text is cut to {@link #MAX_CHARS} characters
 * ({@code cut} says how many were left out) and only the last {@link #MAX_MESSAGES} messages are kept
 * ({@code omitted} counts the earlier ones, a long session's history). The text is masked with the run's secrets
 * like every event.
 */
final class RequestStep {
  static final int MAX_CHARS = 16_000;
  static final int MAX_MESSAGES = 50;

  private RequestStep() {}

  static Map<String, Object> of(LlmSettings.Opening o) {
    Map<String, Object> step = new LinkedHashMap<>();
    step.put("type", "request");
    if (o.system() != null) {
      String system = clip(o.system());
      step.put("system", system);
      if (system.length() < o.system().length()) {
        step.put("system_cut", o.system().length() - system.length());
      }
    }
    List<ChatMessage> all = o.conversation();
    int from = Math.max(0, all.size() - MAX_MESSAGES);
    List<Map<String, Object>> messages = new ArrayList<>();
    for (ChatMessage m : all.subList(from, all.size())) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("role", m.role().name().toLowerCase(Locale.ROOT));
      String content = m.content() == null ? "" : m.content();
      String shown = clip(content);
      x.put("content", shown);
      if (shown.length() < content.length()) {
        x.put("cut", content.length() - shown.length());
      }
      messages.add(x);
    }
    step.put("messages", messages);
    if (from > 0) {
      step.put("omitted", from);
    }
    return step;
  }

  /** Journals the request of an execution that opens now (an agent resumed past its first turn does not). */
  static void record(NodeContext ctx, LlmSettings.Opening o) {
    ctx.steps().note(of(o));
  }

  private static String clip(String s) {
    if (s.length() <= MAX_CHARS) {
      return s;
    }
    // never split a surrogate pair: the store refuses an unpaired one
    int end = Character.isHighSurrogate(s.charAt(MAX_CHARS - 1)) ? MAX_CHARS - 1 : MAX_CHARS;
    return s.substring(0, end);
  }
}
