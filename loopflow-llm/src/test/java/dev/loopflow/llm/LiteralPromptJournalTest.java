package dev.loopflow.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.NodeExecution;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The journal keeps the prompt an LLM node sent even when it has no template expression: the run viewer shows a
 * node's input from the journal, and a literal prompt used to be left out, so the user never saw it.
 */
class LiteralPromptJournalTest {
  @Test
  void aPromptWithoutExpressionsIsJournaledAsSent_bugItWasLeftOut() {
    Loopflow engine = Loopflow.create();
    RunResult r = engine.run(engine.parse("""
        defaults: {model: "mock:demo"}
        nodes:
          - id: plain
            system: "Be brief."
            prompt: "Say hello to the world."
          - id: templated
            prompt: "Say {{ 'hi' }} again."
        """, "t.yaml"), Map.of());
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    List<NodeExecution> rows = engine.store().nodeExecutions(r.runId());
    NodeExecution plain = rows.stream().filter(x -> x.position().path().equals("plain")).findFirst().orElseThrow();
    assertThat(plain.input()).containsEntry("Say hello to the world.", "Say hello to the world.")
        .containsEntry("Be brief.", "Be brief.");
    NodeExecution templated = rows.stream().filter(x -> x.position().path().equals("templated")).findFirst()
        .orElseThrow();
    assertThat(templated.input()).containsEntry("Say {{ 'hi' }} again.", "Say hi again.");
  }
}
