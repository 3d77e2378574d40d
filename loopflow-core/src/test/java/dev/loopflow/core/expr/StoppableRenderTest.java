package dev.loopflow.core.expr;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A render runs where it can be stopped: when its node times out, the thread rendering the template ends too,
 * instead of keeping a core busy until the template is done (hours, for these).
 */
class StoppableRenderTest {
  private static final Loopflow ENGINE = Loopflow.create();

  @TempDir
  Path tmp;

  @ParameterizedTest
  @ValueSource(strings = {
      "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
      "{% for i in range(100000) %}{% for j in range(100000) %}{% if j > i %}{% endif %}{% endfor %}{% endfor %}",
      "{% for i in range(100000) %}{% for j in range(100000) %}{% set k = j %}{% endfor %}{% endfor %}",
      "{% for i in range(100000) %}{% for j in range(100000) %}{{ '' }}{% endfor %}{% endfor %}",
      "{{ range(100000) | map('string') | join('') }}{% for i in range(100000) %}{% for j in range(100000) %}"
          + "{% endfor %}{% endfor %}"})
  void aTimedOutRenderStopsItsThread_bugRenderKeptACoreBusyAfterItsRunEnded(String template) throws Exception {
    Workflow wf = ENGINE.workflow("slow").node("t", "transform", Map.of("template", template, "timeout", "1s"))
        .build();

    RunResult r = ENGINE.run(wf, RunOptions.builder().workingDirectory(tmp).build());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    // The render thread notices its interrupt at its next step; it is given time to get there, not a deadline.
    boolean rendering = true;
    for (int i = 0; i < 600 && rendering; i++) {
      rendering = Thread.getAllStackTraces().values().stream().anyMatch(StoppableRenderTest::rendersATemplate);
      if (rendering) {
        Thread.sleep(100);
      }
    }
    assertThat(rendering).as("a thread still renders the template after its run ended").isFalse();
  }

  private static boolean rendersATemplate(StackTraceElement[] stack) {
    return Arrays.stream(stack).anyMatch(f -> f.getClassName().startsWith("com.hubspot.jinjava.lib.tag.ForTag"));
  }
}
