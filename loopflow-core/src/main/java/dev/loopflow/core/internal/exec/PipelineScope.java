package dev.loopflow.core.internal.exec;

import dev.loopflow.core.expr.Json;
import dev.loopflow.core.model.RestartPolicy;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code pipeline} variable of a pipeline's templates: each stage's latest output under {@code stage-N-output}
 * and under its agent id, and {@code all-outputs}, every one cut to {@link #MAX_STAGE_OUTPUT_BYTES} bytes with a
 * notice naming the shared-memory key that holds the whole output. A stage that has not run (or whose output a
 * restart cleared) is absent, so it renders empty.
 */
final class PipelineScope {
  static final int MAX_STAGE_OUTPUT_BYTES = 8192;
  static final String NOTICE = "[OUTPUT TRUNCATED - Full data stored in SharedMemory. Use "
      + "shared_memory_read(namespace=\"workflow\", key=\"%s\") to fetch complete output]";

  private PipelineScope() {}

  static Map<String, Object> of(Frame frame, RestartPolicy policy) {
    Map<String, Object> out = new LinkedHashMap<>();
    StringBuilder all = new StringBuilder();
    List<String> stages = policy.stages();
    for (int i = 0; i < stages.size(); i++) {
      String id = stages.get(i);
      Map<String, Object> r = frame.result(id);
      if (r == null) {
        continue;
      }
      String key = key(i + 1);
      String shown = truncate(text(r), key);
      out.put(key, shown);
      out.put(id, shown);
      if (!all.isEmpty()) {
        all.append("\n\n");
      }
      all.append("[").append(key).append(": ").append(id).append("]\n").append(shown);
    }
    out.put("all-outputs", all.toString());
    return Collections.unmodifiableMap(out);
  }

  private static String text(Map<String, Object> r) {
    if (r.get("text") instanceof String s) {
      return s;
    }
    Object o = r.get("output");
    return o == null ? "" : o instanceof String s ? s : Json.compact(o);
  }

  /** {@code s} cut to the byte limit on a character boundary, with the notice; unchanged when it fits. */
  static String truncate(String s, String key) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    if (b.length <= MAX_STAGE_OUTPUT_BYTES) {
      return s;
    }
    int end = MAX_STAGE_OUTPUT_BYTES;
    while (end > 0 && (b[end] & 0xC0) == 0x80) {
      end--; // b[end] continues a character that started before: cut before that character
    }
    return new String(b, 0, end, StandardCharsets.UTF_8) + "\n\n" + String.format(NOTICE, key);
  }

  /** The shared-memory key of stage {@code n}'s full output (1-based). */
  static String key(int n) {
    return "stage-" + n + "-output";
  }
}
