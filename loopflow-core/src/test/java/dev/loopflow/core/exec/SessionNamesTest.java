package dev.loopflow.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeOutcome;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A module's own log and a chat session share the journal's session map; a session name (which a workflow or a
 * model reply may choose) must never reach a module's log.
 */
class SessionNamesTest {
  @ParameterizedTest
  @ValueSource(strings = {"\u0000mock-cursor:writer", "\u0000", "\u0000\u0000x"})
  void aSessionNameStartingWithNulFailsTheNodeInsteadOfReachingAModuleLog(String name) {
    Loopflow engine = Loopflow.create();
    Workflow wf = engine.workflow("sessions")
        .node("log", ctx -> {
          ctx.runLog("mock-cursor:writer").append(new NodeContext.Conversation.Turn("cursor", "0"));
          return NodeOutcome.of("logged");
        })
        .node("chat", ctx -> {
          NodeContext.Conversation c = ctx.conversation(name);
          c.append(new NodeContext.Conversation.Turn("user", "overwrite the cursor"));
          return NodeOutcome.of(c.turns().size());
        })
        .edge("log", "chat")
        .build();

    RunResult r = engine.run(wf, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("node_failed");
    assertThat(r.error().message()).contains("a session name must not start with a NUL character");
  }
}
