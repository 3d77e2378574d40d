package dev.loopflow.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@code max_usd} budget cannot count calls to a model with no known price, so such a workflow does not load:
 * the problem is reported on the node that would make the call, for every construct a budget can sit on, and a
 * {@code prices} section (checked itself) fixes it. Each case marks the line the problem must be reported on with
 * {@code #<}.
 */
class UnpricedModelLoadTest {
  static final Loopflow ENGINE = Loopflow.create();

  static List<Problem> problems(String yaml) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> ENGINE.parse(yaml, "t.yaml"));
    assertThat(e).as("the workflow must not load:\n%s", yaml).isNotNull();
    return e.problems();
  }

  static int markedLine(String yaml) {
    List<String> lines = yaml.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains("#<")) {
        return i + 1;
      }
    }
    throw new AssertionError("no #< marker in\n" + yaml);
  }

  static Stream<Arguments> unpriced() {
    return Stream.of(
        Arguments.of("openai:my-finetune", "the run's budget", """
            budget: {max_usd: 0.5}
            nodes:
              - id: a
                model: "openai:my-finetune" #<
                prompt: "hi"
            """),
        Arguments.of("ollama:llama3.2", "the run's budget", """
            budget: {max_usd: 1, max_llm_calls: 3}
            nodes:
              - {id: a, model: "ollama:llama3.2", prompt: "hi"} #<
            """),
        Arguments.of("anthropic:claude-unknown-9", "the run's budget", """
            budget: {max_usd: 1}
            nodes:
              - id: a
                model: claude-unknown-9 #<
                prompt: "hi"
            """),
        // A dated name prices as its family only at a name boundary: gpt-4omini is another model than gpt-4o.
        Arguments.of("openai:gpt-4omini", "the run's budget", """
            budget: {max_usd: 1}
            nodes:
              - {id: a, model: gpt-4omini, prompt: "hi"} #<
            """),
        Arguments.of("ollama:mistral", "the run's budget", """
            budget: {max_usd: 1}
            nodes:
              - id: a
                provider: ollama
                model: mistral #<
                prompt: "hi"
            """),
        Arguments.of("ollama:qwen", "defaults.model", """
            budget: {max_usd: 1}
            defaults: {model: "ollama:qwen"}
            nodes:
              - id: a #<
                prompt: "hi"
            """),
        Arguments.of("ollama:qwen", "loop_group 'g'", """
            nodes:
              - id: g
                loop_group:
                  max_iterations: 3
                  budget: {max_usd: 0.2}
                  nodes:
                    - {id: a, model: "ollama:qwen", prompt: "hi"} #<
            """),
        Arguments.of("ollama:qwen", "while_loop 'w'", """
            nodes:
              - id: w
                type: while_loop
                max_iterations: 3
                condition: "true"
                budget: {max_usd: 0.2}
                body:
                  - id: g
                    loop_group:
                      max_iterations: 2
                      nodes:
                        - {id: a, model: "ollama:qwen", prompt: "hi"} #<
            """),
        Arguments.of("ollama:qwen", "iterator 'each'", """
            nodes:
              - {id: each, type: iterator, items: "[1, 2]", budget: {max_usd: 0.2}}
              - {id: a, model: "ollama:qwen", prompt: "hi"} #<
              - {id: collect, type: aggregator}
            edges:
              - {from: each, to: a}
              - {from: a, to: collect}
            """),
        Arguments.of("ollama:qwen", "loop 'refine'", """
            nodes:
              - {id: refine, type: loop, maxIterations: 2, budget: {max_usd: 0.2}}
              - {id: a, model: "ollama:qwen", prompt: "hi"} #<
              - {id: done, type: exit}
            edges:
              - {from: refine, to: a}
              - {from: a, to: done}
            """),
        Arguments.of("openai:my-router", "the run's budget", """
            budget: {max_usd: 1}
            nodes:
              - id: pick
                type: router
                model: "openai:my-router" #<
                routes: {up: "agree", down: "disagree"}
            """),
        // A price for another provider does not price this one.
        Arguments.of("ollama:llama3.2", "the run's budget", """
            budget: {max_usd: 1}
            prices: {openai: {llama3.2: {input: 0, output: 0}}}
            nodes:
              - {id: a, model: "ollama:llama3.2", prompt: "hi"} #<
            """));
  }

  @ParameterizedTest(name = "{0} under {1}")
  @MethodSource("unpriced")
  void anUnpricedModelUnderMaxUsdDoesNotLoad_bugUnknownCostIgnoredTheBudget(String model, String budget,
      String yaml) {
    List<Problem> ps = problems(yaml);
    assertThat(ps).hasSize(1);
    Problem p = ps.get(0);
    assertThat(p.location().file()).isEqualTo("t.yaml");
    assertThat(p.location().line()).isEqualTo(markedLine(yaml));
    assertThat(p.message()).contains("model '" + model + "' has no known price")
        .contains("cannot be counted against max_usd").contains(budget)
        .contains("prices: {" + model.substring(0, model.indexOf(':')) + ": {\""
            + model.substring(model.indexOf(':') + 1) + "\": {input: <USD>, output: <USD>}}}");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      // no max_usd applies
      "nodes:\n  - {id: a, model: \"ollama:llama3.2\", prompt: hi}\n",
      "budget: {max_llm_calls: 2, max_tokens: 1000}\nnodes:\n  - {id: a, model: \"ollama:llama3.2\", prompt: hi}\n",
      // the loop's max_usd does not reach a node outside it
      """
      nodes:
        - {id: a, model: "ollama:llama3.2", prompt: hi}
        - id: g
          depends_on: [a]
          loop_group:
            max_iterations: 2
            budget: {max_usd: 0.1}
            nodes:
              - {id: b, model: "openai:gpt-4o-mini", prompt: hi}
      """,
      """
      nodes:
        - {id: each, type: iterator, items: "[1]", budget: {max_usd: 0.2}}
        - {id: a, model: "openai:gpt-4o-mini", prompt: hi}
        - {id: collect, type: aggregator}
        - {id: after, depends_on: [collect], model: "ollama:llama3.2", prompt: hi}
      edges:
        - {from: each, to: a}
        - {from: a, to: collect}
      """,
      // priced by the bundled table, by the workflow's prices (exactly, or as a dated variant), or free
      "budget: {max_usd: 1}\nnodes:\n  - {id: a, model: \"openai:gpt-4o-mini-2024-07-18\", prompt: hi}\n",
      "budget: {max_usd: 1}\nprices: {ollama: {llama3.2: {input: 0, output: 0}}}\n"
          + "nodes:\n  - {id: a, model: \"ollama:llama3.2\", prompt: hi}\n",
      "budget: {max_usd: 1}\nprices: {openai: {my-finetune: {input: 3, output: 12.5}}}\n"
          + "nodes:\n  - {id: a, model: \"openai:my-finetune-v2\", prompt: hi}\n",
      "budget: {max_usd: 1}\nprices: {openai: {My-Finetune: {input: 3, output: 12}}}\n"
          + "nodes:\n  - {id: a, model: \"openai:my-finetune\", prompt: hi}\n",
      "budget: {max_usd: 1}\nnodes:\n  - {id: a, model: \"mock:anything\", prompt: hi}\n",
      // auto is resolved at run time; a price it lacks then fails the call (see BudgetConcurrencyTest)
      "budget: {max_usd: 1}\nnodes:\n  - {id: a, model: auto, prompt: hi}\n",
      "budget: {max_usd: 1}\nprices: {openai: {my-router: {input: 1, output: 1}}}\nnodes:\n  - id: pick\n"
          + "    type: router\n    model: \"openai:my-router\"\n    routes: {up: agree, down: disagree}\n"})
  void aPricedOrUnlimitedModelLoads(String yaml) {
    assertThat(ENGINE.parse(yaml, "t.yaml").nodes()).isNotEmpty();
  }

  static Stream<Arguments> badPrices() {
    return Stream.of(
        Arguments.of("prices: [openai]", "prices", "expected a mapping of provider to model prices"),
        Arguments.of("prices: {opneai: {m: {input: 1, output: 1}}}", "prices.opneai",
            "unknown provider 'opneai' (did you mean 'openai'?)"),
        Arguments.of("prices: {mock: {m: {input: 1, output: 1}}}", "prices.mock", "unknown provider 'mock'"),
        Arguments.of("prices: {OpenAI: {m: {input: 1, output: 1}}}", "prices.OpenAI", "unknown provider 'OpenAI'"),
        Arguments.of("prices: {openai: gpt}", "prices.openai", "expected a mapping of model name to {input, output}"),
        Arguments.of("prices: {openai: {m: 3}}", "prices.openai.m", "expected {input, output} in USD per million"),
        Arguments.of("prices: {openai: {m: {input: 1}}}", "prices.openai.m", "missing required field 'output'"),
        Arguments.of("prices: {openai: {m: {input: -1, output: 1}}}", "prices.openai.m.input", "at least 0"),
        Arguments.of("prices: {openai: {m: {input: \"3\", output: 1}}}", "prices.openai.m.input",
            "'input' must be a number"),
        Arguments.of("prices: {openai: {m: {input: <USD>, output: 1}}}", "prices.openai.m.input", "found '<USD>'"),
        Arguments.of("prices: {openai: {m: {input: 1e400, output: 1}}}", "prices.openai.m.input", "must be a number"),
        Arguments.of("prices: {openai: {m: {input: true, output: 1}}}", "prices.openai.m.input", "must be a number"),
        Arguments.of("prices: {openai: {m: {input: null, output: 1}}}", "prices.openai.m.input", "must be a number"),
        Arguments.of("prices: {openai: {m: {input: 1, output: 1, cached: 0.5}}}", "prices.openai.m.cached",
            "unknown field 'cached'"),
        Arguments.of("prices: {openai: {m: {inputs: 1, output: 1}}}", "prices.openai.m.inputs",
            "unknown field 'inputs' (did you mean 'input'?)"),
        Arguments.of("prices: {openai: {\"\": {input: 1, output: 1}}}", "prices.openai.", "must not be empty"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badPrices")
  void aMalformedPricesSectionIsReportedWhereItIsWrong(String section, String path, String message) {
    List<Problem> ps = problems(section + "\nnodes:\n  - {id: a, model: \"mock:m\", prompt: hi}\n");
    assertThat(ps).anySatisfy(p -> {
      assertThat(p.path()).isEqualTo(path);
      assertThat(p.message()).contains(message);
      assertThat(p.location().line()).isEqualTo(1);
    });
  }
}
