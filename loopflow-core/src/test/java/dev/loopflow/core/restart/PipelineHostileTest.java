package dev.loopflow.core.restart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.RunStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Placeholder and template injection in pipelines: run inputs, stage outputs, restart reasons and parameters that
 * look like templates are inserted as data, never evaluated; hostile prompt templates in the workflow file are load
 * errors at file:line:col or render correctly, never crash.
 */
class PipelineHostileTest {
  private final RunStore store = RunStore.inMemory();
  private HostileAgent agent;
  private Loopflow lf;

  private Workflow load(String yaml, Map<String, HostileAgent.Reply> replies) {
    agent = new HostileAgent(replies);
    lf = Loopflow.builder().discover(false).handler(agent).store(store).build();
    return lf.parse(yaml, "hostile.yaml");
  }

  private RunResult run(String yaml, Map<String, HostileAgent.Reply> replies, Map<String, Object> inputs) {
    return lf(yaml, replies, inputs);
  }

  private RunResult lf(String yaml, Map<String, HostileAgent.Reply> replies, Map<String, Object> inputs) {
    Workflow wf = load(yaml, replies);
    return lf.run(wf, RunOptions.builder().inputs(inputs).build());
  }

  /** Text that would do something if it were evaluated as a template, an expression, a shell word or a terminal. */
  static Stream<String> hostileValues() {
    return Stream.of(
        "{{ previous }}",
        "{{previous}}",
        "{{stage-1-output}}",
        "{{ stage-2-output }}",
        "{{all-outputs}}",
        "{{ table }}",
        "{{ input.table }}",
        "{{ 7 * 7 }}",
        "{{ env }}",
        "{{ loop.restart.reason }}",
        "{{ pipeline['stage-1-output'] }}",
        "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
        "{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
        "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}",
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{% raw %}{{ previous }}{% endraw %}",
        "{# a comment #}",
        "{{", "}}", "{%", "%}", "{{{{previous}}}}", "{{ {{previous}} }}",
        "$LOOP_PREV.discover.output",
        "$LOOP_USER_INPUT",
        "${HOME} $(touch pwned) `id`",
        "\u0000NUL\u0000",
        "\u001b[2J\u001b[31mred\u001b[0m\u0007",
        "line1\r\nline2\nline3\u2028\u2029",
        "\ud800 lone high, lone low \udc00",
        "\udc00\ud800",
        "emoji \uD83D\uDE00 and RTL \u202Eevil\u202C",
        "",
        " ",
        "x".repeat(8192));
  }

  private static final String TWO_STAGES = """
      workflow_pattern:
        iterative:
          pipeline:
            stages:
              - agent_id: discover
                prompt_template: "Look at <{{table}}>"
              - agent_id: build
                prompt_template: "prev <{{previous}}> n <{{stage-1-output}}> id <{{discover}}> all <{{all-outputs}}>"
      """;

  @ParameterizedTest(name = "[{index}]")
  @MethodSource("hostileValues")
  void aRunInputAndAStageOutputThatLookLikeTemplatesReachTheNextPromptLiterally(String value) {
    RunResult r = run(TWO_STAGES, Map.of("discover", c -> value), Map.of("table", value));

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.promptsOf("discover")).containsExactly("Look at <" + value + ">");
    assertThat(agent.promptsOf("build")).containsExactly("prev <" + value + "> n <" + value + "> id <" + value
        + "> all <[stage-1-output: discover]\n" + value + ">");
  }

  @ParameterizedTest(name = "[{index}]")
  @MethodSource("hostileValues")
  void aRestartReasonAndParametersThatLookLikeTemplatesReachTheRestartedPromptLiterally(String value) {
    String yaml = """
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - agent_id: a
                  prompt_template: "why <{{ loop.restart.reason }}> p <{{ loop.restart.parameters.k }}>"
                - agent_id: b
                  prompt_template: "b"
            restart_policy: {enabled: true, max_validation_retries: 0}
        """;
    RunResult r = run(yaml, Map.of("b", c -> {
      if (c.n() == 0) {
        c.ctx().requestRestart("a", value, Map.of("k", value.length() > RestartRequest.MAX_VALUE_CHARS
            ? value.substring(0, 10) : value));
      }
      return "done";
    }), Map.of());

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    String p = value.length() > RestartRequest.MAX_VALUE_CHARS ? value.substring(0, 10) : value;
    String reason = value.length() > RestartRequest.MAX_TEXT_CHARS ? value.substring(0,
        RestartRequest.MAX_TEXT_CHARS - 1) + "…" : value;
    assertThat(agent.promptsOf("a")).containsExactly("why <> p <>", "why <" + reason + "> p <" + p + ">");
  }

  @Test
  void aHugeStageOutputIsCutAtTheByteLimitOnACharacterBoundaryInEveryPlaceholder() {
    // 3-byte and 4-byte characters around the cut, and a template-looking tail beyond it
    String value = "{{previous}}" + "\u20ac".repeat(2700) + "\uD83D\uDE00".repeat(100) + "{% endfor %}".repeat(1000);
    RunResult r = run(TWO_STAGES, Map.of("discover", c -> value), Map.of("table", "t"));

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    String prompt = agent.promptsOf("build").get(0);
    String notice = "\n\n[OUTPUT TRUNCATED - Full data stored in SharedMemory. Use shared_memory_read(namespace="
        + "\"workflow\", key=\"stage-1-output\") to fetch complete output]";
    String shown = prompt.substring("prev <".length(), prompt.indexOf("> n <"));
    assertThat(shown).endsWith(notice);
    String cut = shown.substring(0, shown.length() - notice.length());
    assertThat(value).startsWith(cut);
    assertThat(cut.getBytes(StandardCharsets.UTF_8).length).isBetween(8192 - 3, 8192);
    assertThat(prompt).contains("n <" + shown + ">").contains("id <" + shown + ">");
  }

  @Test
  void aStageOutputThatIsNotWellFormedTextPassesOnAndIsStoredWithReplacementCharacters() {
    String yaml = TWO_STAGES + "    restart_policy: {keep_shared_memory: true}\n";
    RunResult r = run(yaml, Map.of("discover",
        c -> "x\ud800y\udc00"), Map.of("table", "t"));
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.promptsOf("build").get(0)).startsWith("prev <x\ud800y\udc00>");
    var stored = store.getMemory(r.runId(), "WORKFLOW", "stage-1-output").orElseThrow();
    assertThat(new String(stored.value(), StandardCharsets.UTF_8)).isEqualTo("x\uFFFDy\uFFFD");
  }

  @Test
  void aMegabyteRunInputIsInsertedWholeAndLiterally() {
    String value = "{{previous}}{% for x in range(9) %}".repeat(30_000);
    RunResult r = run(TWO_STAGES, Map.of("discover", c -> "ok"), Map.of("table", value));
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.promptsOf("discover")).containsExactly("Look at <" + value + ">");
  }

  // -------------------------------------------------------------------------------------------------------------
  // Hostile templates in the workflow file

  private static String oneStage(String template) {
    return """
        workflow_pattern:
          iterative:
            pipeline:
              initial_prompt: "INIT"
              stages:
                - agent_id: first
                  prompt_template: %s
                - agent_id: second
                  prompt_template: %s
        """.formatted(quote("first"), quote(template));
  }

  private static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\t' -> sb.append("\\t");
        default -> sb.append(c);
      }
    }
    return sb.append('"').toString();
  }

  /** Templates that render: the prompt the second stage gets when the first answered {@code OUT}. */
  static Stream<Arguments> templatesThatRender() {
    return Stream.of(
        Arguments.of("{{previous}}", "OUT"),
        Arguments.of("{{ previous }}", "OUT"),
        Arguments.of("{{   previous}}", "OUT"),
        Arguments.of("{{\tprevious\n}}", "OUT"),
        Arguments.of("{{previous}}{{previous}}", "OUTOUT"),
        Arguments.of("{{stage-1-output}}/{{ first }}/{{stage-2-output}}", "OUT/OUT/"),
        Arguments.of("{{ stage-01-output }}", "OUT"),
        Arguments.of("{{all-outputs}}", "[stage-1-output: first]\nOUT"),
        Arguments.of("{{ '{{previous}}' }}", null),
        Arguments.of("{% raw %}{{previous}}{% endraw %}", "{{previous}}"),
        Arguments.of("{{ previous|upper }}", null),
        Arguments.of("{{ first.text|lower }}", "out"),
        Arguments.of("{{ pipeline['stage-1-output'] | lower }}", "out"),
        Arguments.of("{{ loop.iteration }}", "1"),
        Arguments.of("{{ loop.restart.reason }}<", "<"),
        Arguments.of("{{ unknown_input }}", ""),
        Arguments.of("{ {previous} }", "{ {previous} }"),
        Arguments.of("{{{previous}}}", null),
        Arguments.of("{{ {{previous}} }}", null),
        Arguments.of("{{previous", null),
        Arguments.of("previous}}", "previous}}"),
        Arguments.of("{% for i in range(3) %}{{previous}}{% endfor %}", "OUTOUTOUT"),
        Arguments.of("{% if true %}", null),
        Arguments.of("{% for i in range(1000000000) %}x{% endfor %}", "!range"),
        Arguments.of("{{ stage-0-output }}", null),
        Arguments.of("{{ stage-3-output }}", null),
        Arguments.of("{{stage-99999-output}}", null),
        Arguments.of("{{ stage-1-outputs }}", null),
        Arguments.of("{{ not-a-stage }}", null),
        Arguments.of("{{ -previous }}", null),
        Arguments.of("{{ previous- }}", null),
        Arguments.of("{{ all_outputs }}", ""),
        Arguments.of("{# {{previous}} #}x", "x"),
        Arguments.of("{% raw %} {{ stage-1-output }} {% endraw %}", " {{ stage-1-output }} "),
        Arguments.of("{%- raw -%} {{ stage-1-output }} {%- endraw -%}", null),
        Arguments.of("{{ '%0999999999d'.formatted(1) }}", "!over the limit"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("templatesThatRender")
  void aHostilePromptTemplateIsALoadErrorAtItsLineOrRendersCorrectly(String template, String expected) {
    RunResult[] r = new RunResult[1];
    Throwable t = catchThrowable(() -> r[0] = lf(oneStage(template), Map.of("first", c -> "OUT"), Map.of()));
    if (expected != null && expected.startsWith("!")) {
      // a template that fails when it renders: the stage fails with a message naming the limit
      assertThat(t).isNull();
      assertThat(r[0].status()).isEqualTo(RunStatus.FAILED);
      assertThat(r[0].error().code()).isEqualTo("node_failed");
      assertThat(r[0].error().message()).contains(expected.substring(1)).doesNotContain("Exception");
    } else if (expected == null) {
      assertThat(t).as("a load error").isInstanceOf(WorkflowInvalidException.class);
      assertThat(t.getMessage()).matches("(?s)\\d+ problems?:\nhostile\\.yaml:\\d+:\\d+: .*");
      assertThat(t.getMessage()).doesNotContain("Exception").doesNotContain("\tat ");
    } else {
      assertThat(t).isNull();
      assertThat(r[0].status()).as(String.valueOf(r[0].error())).isEqualTo(RunStatus.COMPLETED);
      assertThat(agent.promptsOf("second")).containsExactly(expected);
    }
  }

  @Test
  void aZeroPaddedStageNumberReadsThatStage_bugStage01OutputRenderedEmpty() {
    lf(oneStage("[{{stage-01-output}}] [{{ stage-001-output }}]"), Map.of("first", c -> "OUT"), Map.of());
    assertThat(agent.promptsOf("second")).containsExactly("[OUT] [OUT]");
  }

  @Test
  void aPlaceholderInARawBlockStaysAsWritten_bugRawBlockShowedTheRewrittenReference() {
    lf(oneStage("{% raw %}{{previous}} {{all-outputs}}{% endraw %} {{previous}}"), Map.of("first", c -> "OUT"),
        Map.of());
    assertThat(agent.promptsOf("second")).containsExactly("{{previous}} {{all-outputs}} OUT");
  }

  @Test
  void theInitialPromptIsKeptWhenPreviousAppearsOnlyInARawBlock_bugInitialPromptDropped() {
    String yaml = """
        workflow_pattern:
          iterative:
            pipeline:
              initial_prompt: "INIT"
              stages:
                - agent_id: first
                  prompt_template: "write {% raw %}{{previous}}{% endraw %} literally"
        """;
    lf(yaml, Map.of(), Map.of());
    assertThat(agent.promptsOf("first")).containsExactly("INIT\n\nwrite {{previous}} literally");
  }

  @Test
  void aPlaceholderRepeatedTenThousandTimesRendersOrFailsTheStageOnTheOutputLimit() {
    // ten lines of 1,000 each (a workflow line holds at most 100,000 characters)
    String template = ("{{previous}}".repeat(1_000) + "\n").repeat(10);
    String yaml = oneStage("PLACE").replace("\"PLACE\"", "|\n" + template.indent(12));
    RunResult small = lf(yaml, Map.of("first", c -> "ab"), Map.of());
    assertThat(small.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.promptsOf("second")).containsExactly(("ab".repeat(1_000) + "\n").repeat(10));

    // 10,000 copies of an 8 KiB output are 80 MiB: over the template output limit, which fails the stage cleanly.
    RunResult big = lf(yaml, Map.of("first", c -> "y".repeat(8192)), Map.of());
    assertThat(big.status()).isEqualTo(RunStatus.FAILED);
    assertThat(big.error().code()).isEqualTo("node_failed");
    assertThat(big.error().message()).contains("over the limit");
  }

  @Test
  void aHundredStagesEachReadingAllOutputsRunInOrder() {
    StringBuilder yaml = new StringBuilder("""
        workflow_pattern:
          iterative:
            pipeline:
              stages:
        """);
    for (int i = 1; i <= 100; i++) {
      yaml.append("        - {agent_id: s").append(i).append(", prompt_template: \"{{previous}}|{{all-outputs}}\"}\n");
    }
    RunResult r = lf(yaml.toString(), Map.of(), Map.of());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.prompts).hasSize(100);
    // all-outputs holds 99 outputs of ~80 bytes each on the last stage
    assertThat(agent.promptsOf("s100").get(0)).contains("[stage-99-output: s99]");

    Throwable t = catchThrowable(() -> lf(yaml + "        - {agent_id: s101, prompt_template: x}\n", Map.of(),
        Map.of()));
    assertThat(t).isInstanceOf(WorkflowInvalidException.class).hasMessageContaining("at most 100 stages");
    assertThat(t.getMessage()).matches("(?s)\\d+ problems?:\nhostile\\.yaml:\\d+:\\d+: .*");
  }

  static Stream<Arguments> hostileStageIds() {
    return Stream.of(
        Arguments.of("restart"),
        Arguments.of("../a"),
        Arguments.of("a b"),
        Arguments.of(""),
        Arguments.of(" "),
        Arguments.of("a\\u0000b"),
        Arguments.of("\\u001b[31m"),
        Arguments.of("input"),
        Arguments.of("loop"),
        Arguments.of("pipeline"),
        Arguments.of("previous"),
        Arguments.of("all-outputs"),
        Arguments.of("stage-1-output"),
        Arguments.of("x".repeat(300)),
        Arguments.of("a.b"),
        Arguments.of("a[0]"),
        Arguments.of("a~restart"));
  }

  @ParameterizedTest(name = "[{index}]")
  @MethodSource("hostileStageIds")
  void aHostileAgentIdIsALoadErrorOrAWorkingStage(String id) {
    String yaml = """
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: "%s", prompt_template: "one"}
                - {agent_id: other, prompt_template: "two {{previous}}"}
            restart_policy: {enabled: true, max_validation_retries: 0}
        """.formatted(id);
    Throwable t = catchThrowable(() -> lf(yaml, Map.of(id, c -> "OUT"), Map.of()));
    if (t != null) {
      assertThat(t).isInstanceOf(WorkflowInvalidException.class);
      assertThat(t.getMessage()).matches("(?s)\\d+ problems?:\nhostile\\.yaml:\\d+:\\d+: .*");
    } else {
      assertThat(agent.promptsOf("other")).containsExactly("two OUT");
    }
  }
}
