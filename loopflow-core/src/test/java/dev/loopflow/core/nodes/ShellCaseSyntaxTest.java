package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@code case} whose {@code esac} stands where a pattern would, followed by the pattern's ')', is a syntax error
 * the shell reports when it runs; reading the command must not fail on it, and what follows the ')' is still read
 * as a command, so a value given to code there is refused as anywhere else.
 */
class ShellCaseSyntaxTest {
  private static final Loopflow ENGINE = Loopflow.create();

  private static String workflow(String command) {
    return """
        input: {v: string}
        nodes:
          - id: sh
            bash: %s
        """.formatted("'" + command.replace("'", "''").replace("V", "{{ input.v }}") + "'");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "case x in esac) echo V",
      "case x in esac)",
      "case V in esac) echo done",
      "case x in a) echo a;; esac) echo V",
      "case x in a|esac) echo V;; esac",
      "case x in (esac) echo V;; esac",
      "case x in esac) echo V;; esac) echo V",
      "echo $(case x in esac) echo V)",
      "echo `case x in esac) echo V`",
      "[[ -n V ]] && case x in esac) printf %s V",
      "case x in\nesac)\necho V"})
  void misplacedEsacBeforeAPatternEndStillLoads_bugCasePatternEndAfterEsac(String command) {
    Workflow wf = ENGINE.parse(workflow(command), "wf.yaml");

    assertThat(wf.nodes()).extracting(n -> n.id()).containsExactly("sh");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "case x in esac) sh -c V",
      "case x in esac) eval V",
      "case x in esac) bash -c \"echo V\"",
      "case x in a) ;; esac) trap V EXIT"})
  void codeAfterAMisplacedEsacIsStillRefused(String command) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> ENGINE.parse(workflow(command), "wf.yaml"));

    assertThat(e).isNotNull();
    assertThat(e.problems()).extracting(Problem::message)
        .allSatisfy(m -> assertThat(m).contains("{{ input.v }} is used in shell code"));
  }
}
