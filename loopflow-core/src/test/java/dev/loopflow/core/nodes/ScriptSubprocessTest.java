package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.load.PythonAvailable;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ScriptSubprocessTest {
  private final Loopflow engine = Loopflow.create();

  @BeforeEach
  void needsPython() {
    assumeThat(PythonAvailable.python3()).as("python3 on PATH").isTrue();
  }

  @Test
  void pythonPrintsGoToStdoutAndTheReturnedDictIsMergedIntoState() {
    Workflow wf = engine.parse("""
        name: py
        nodes:
          - id: py
            run: |
              import json
              print("working on", state["n"])
              return {"n": state["n"] * 2, "names": [input["who"], "x"]}
        """, "py.yaml");

    RunResult r = engine.run(wf, Map.of("n", 21, "who", "ada"));

    assertThat(r.error()).isNull();
    assertThat(r.state()).containsEntry("n", 42).containsEntry("names", List.of("ada", "x"));
    assertThat(r.nodes().get("py")).containsEntry("stdout", "working on 21\n");
  }

  @Test
  void pythonExceptionFailsTheNodeWithTheTraceback() {
    Workflow wf = engine.parse("""
        name: py
        nodes:
          - id: py
            language: python
            run: |
              raise ValueError("bad input")
        """, "py.yaml");

    RunResult r = engine.run(wf, Map.of());

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message()).startsWith("script node 'py' failed: python3 script failed (exit 1): ")
        .contains("ValueError: bad input");
  }
}
