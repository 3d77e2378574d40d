package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every loop example in {@code examples/loop-*.yaml} runs offline through the CLI, as its header documents, and
 * does what docs/loops.md says: the loop's count and exit reason and the key output. LLM calls go to the mock
 * provider ({@code --mock-llm}), so a configured real provider in the environment does not change the results.
 */
class LoopExamplesTest {
  private static final Path EXAMPLES = Path.of("../examples");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Runs an example with --json --quiet (and the given extra arguments) and returns the result object. */
  private static JsonNode run(int expectedStatus, String example, String... args) throws IOException {
    List<String> argv = new ArrayList<>(List.of("run", EXAMPLES.resolve(example).toString(), "--json", "--quiet"));
    argv.addAll(Arrays.asList(args));
    CliTest.Run r = CliTest.cli(argv.toArray(String[]::new));
    assertThat(r.status()).as(example + " exit status; stderr: " + r.err()).isEqualTo(expectedStatus);
    return JSON.readTree(r.out());
  }

  private static JsonNode completed(String example, String... args) throws IOException {
    JsonNode json = run(0, example, args);
    assertThat(json.get("status").asText()).isEqualTo("completed");
    assertThat(json.get("error").isNull()).isTrue();
    return json;
  }

  private static void assertLoop(JsonNode loopResult, int count, String exitReason) {
    assertThat(loopResult.get("status") == null ? "completed" : loopResult.get("status").asText())
        .isEqualTo("completed");
    assertThat(loopResult.get("count").asInt()).as("count").isEqualTo(count);
    assertThat(loopResult.get("exit_reason").asText()).as("exit_reason").isEqualTo(exitReason);
    assertThat(loopResult.get("iterations").size()).as("iterations").isEqualTo(count);
  }

  private static boolean python3Available() {
    try {
      Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static List<Path> loopExamples() throws IOException {
    try (Stream<Path> s = Files.list(EXAMPLES)) {
      return s.filter(p -> p.getFileName().toString().matches("loop-.*\\.yaml") && !p.getFileName().toString()
          .contains(".mock.")).sorted().toList();
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Every example: valid, labelled, and its documented command runs to completion.

  @Test
  void everyLoopExampleValidates() throws IOException {
    List<Path> examples = loopExamples();
    assertThat(examples).hasSizeGreaterThanOrEqualTo(10);
    for (Path p : examples) {
      CliTest.Run r = CliTest.cli("validate", p.toString());
      assertThat(r.status()).as(p + ": " + r.err()).isZero();
    }
  }

  @Test
  void everyLoopExampleDocumentsItsRunCommandAndLabelsTheMock() throws IOException {
    for (Path p : loopExamples()) {
      String text = Files.readString(p);
      assertThat(text).as(p + " starts with comments").startsWith("#");
      assertThat(text).as(p + " documents its command").contains("# run: ./loopflow run examples/"
          + p.getFileName());
      boolean usesLlm = text.contains("prompt:") || text.contains("llm.call") || text.contains("claude.agent");
      if (usesLlm) {
        String header = text.lines().takeWhile(l -> l.startsWith("#")).reduce("", (a, b) -> a + b + "\n");
        assertThat(header).as(p + " says that it runs on the mock provider").contains("mock");
      }
    }
  }

  @Test
  void everyDocumentedRunCommandCompletes() throws IOException {
    boolean realProvider = System.getenv("OPENAI_API_KEY") != null || System.getenv("OPENAI_BASE_URL") != null
        || System.getenv("OLLAMA_BASE_URL") != null || System.getenv("ANTHROPIC_API_KEY") != null;
    for (Path p : loopExamples()) {
      String line = Files.readString(p).lines().filter(l -> l.startsWith("# run: ./loopflow ")).findFirst()
          .orElseThrow();
      if (line.contains("refine-until-valid") && !python3Available()) {
        continue;
      }
      List<String> argv = new ArrayList<>();
      for (String a : words(line.substring("# run: ./loopflow ".length()))) {
        argv.add(a.startsWith("examples/") ? "../" + a : a);
      }
      argv.add("--quiet");
      if (realProvider && argv.stream().noneMatch(a -> a.startsWith("--mock-"))) {
        argv.add("--mock-llm"); // keep the test offline; the example's own mock block answers
      }
      CliTest.Run r = CliTest.cli(argv.toArray(String[]::new));
      assertThat(r.status()).as(line + "\nstderr: " + r.err()).isZero();
    }
  }

  /** Splits a shell command line on blanks, honouring double and single quotes. */
  private static List<String> words(String s) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean any = false;
    char quote = 0;
    for (char c : s.toCharArray()) {
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          cur.append(c);
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
        any = true;
      } else if (Character.isWhitespace(c)) {
        if (any || cur.length() > 0) {
          out.add(cur.toString());
        }
        cur.setLength(0);
        any = false;
      } else {
        cur.append(c);
      }
    }
    if (any || cur.length() > 0) {
      out.add(cur.toString());
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Loop edge

  @Test
  void coderReviewerLoopsBackOnceThenPasses() throws IOException {
    JsonNode json = completed("loop-coder-reviewer.yaml", "--mock-script", "../examples/loop-coder-reviewer.mock.json",
        "--input", "task=add two numbers");
    JsonNode reviewer = json.get("nodes").get("reviewer");
    assertLoop(reviewer.get("loop"), 2, "condition_false");
    assertThat(reviewer.get("loop").get("edge").asText()).isEqualTo("reviewer->coder");
    assertThat(reviewer.get("loop").get("max_iterations").asInt()).isEqualTo(3);
    assertThat(reviewer.get("structuredOutput").get("passed").asBoolean()).isTrue();
    assertThat(reviewer.get("loop").get("iterations").get(0).asText()).contains("\"passed\": false");
    assertThat(json.get("nodes").get("coder").get("output").asText()).contains("return a + b");
    assertThat(json.get("nodes").get("coder").get("mock").asBoolean()).isTrue();
    assertThat(json.get("usage").get("llm_calls").asInt()).isEqualTo(4);
  }

  @Test
  void coderReviewerRunOutputIsTheLastReview() throws IOException {
    JsonNode json = completed("loop-coder-reviewer.yaml", "--mock-script", "../examples/loop-coder-reviewer.mock.json",
        "--input", "task=add two numbers");
    assertThat(json.get("output").asText()).isEqualTo("{\"passed\": true, \"feedback\": \"correct\"}");
  }

  // ---------------------------------------------------------------------------------------------------------
  // loop + exit

  @Test
  void selfRefineRunsExactlyThreePasses() throws IOException {
    JsonNode json = completed("loop-self-refine.yaml", "--mock-llm");
    assertLoop(json.get("nodes").get("refine"), 3, "max_iterations");
    assertThat(json.get("nodes").get("refine").get("iterations").get(1).asText()).startsWith("Draft (pass 2 of 3)");
    assertThat(json.get("output").asText()).startsWith("An unbounded loop can run forever");
    assertThat(json.get("usage").get("llm_calls").asInt()).isEqualTo(6);
    assertThat(json.get("nodes").get("draft").get("mock").asBoolean()).isTrue();
  }

  @Test
  void agenticSearchStopsWhenTheEvaluatorSaysDone() throws IOException {
    JsonNode json = completed("loop-agentic-search.yaml", "--mock-llm");
    assertLoop(json.get("nodes").get("research"), 2, "evaluator_done");
    assertThat(json.get("nodes").get("enough").get("selectedBranch").asText()).isEqualTo("done");
    assertThat(json.get("output").asText()).contains("- bound: loops: every loop has a bound")
        .contains("Still missing: what happens when the bound is reached")
        .contains("- on_exhausted: on_exhausted: fail stops the run");
    assertThat(json.get("nodes").get("research").get("iterations").get(0).asText())
        .endsWith("Still missing: what happens when the bound is reached");
    assertThat(json.get("usage").get("llm_calls").asInt()).isEqualTo(4);
  }

  // ---------------------------------------------------------------------------------------------------------
  // while_loop

  @Test
  void whileCounterStopsWhenTheConditionTurnsFalse() throws IOException {
    JsonNode json = completed("loop-while-counter.yaml", "--input", "count=0");
    assertLoop(json.get("nodes").get("count_loop"), 3, "condition_false");
    assertThat(json.get("output").get("count").asInt()).isEqualTo(3);
  }

  @ParameterizedTest(name = "count={0}, sum={1} -> count={2}, sum={3} after {4} passes")
  @CsvSource({"0, 0, 5, 15, 5", "10, 0, 10, 0, 0", "3, 0, 5, 9, 2"})
  void whileParityTable(int count, int sum, int countOut, int sumOut, int passes) throws IOException {
    JsonNode json = completed("loop-while-parity.yaml", "--input", "count=" + count, "--input", "sum=" + sum);
    assertLoop(json.get("nodes").get("accumulate"), passes, "condition_false");
    assertThat(json.get("output").get("count").asInt()).isEqualTo(countOut);
    assertThat(json.get("output").get("sum").asInt()).isEqualTo(sumOut);
    assertThat(json.get("state").get("count").asInt()).isEqualTo(countOut);
    assertThat(json.get("state").get("sum").asInt()).isEqualTo(sumOut);
  }

  @Test
  void refineUntilValidRetriesUntilTheReplyParses() throws IOException {
    assumeTrue(python3Available(), "python3 is needed by the example's validate node");
    JsonNode json = completed("loop-refine-until-valid.yaml",
        "--mock-script", "../examples/loop-refine-until-valid.mock.json");
    assertLoop(json.get("nodes").get("refine_until_valid"), 2, "condition_false");
    assertThat(json.get("output").get("name").asText()).isEqualTo("Ada");
    assertThat(json.get("output").get("age").asInt()).isEqualTo(36);
    assertThat(json.get("state").get("is_valid").asBoolean()).isTrue();
    assertThat(json.get("state").get("llm_response").get("mock").asBoolean()).isTrue();
  }

  // ---------------------------------------------------------------------------------------------------------
  // loop_group

  @Test
  void fixUntilPassEndsOnTheSignal() throws IOException {
    JsonNode json = completed("loop-group-fix-until-pass.yaml", "--mock-llm");
    JsonNode group = json.get("nodes").get("fix_until_pass");
    assertLoop(group, 2, "signal");
    assertThat(group.get("output").asText()).endsWith("TESTS_PASS");
    assertThat(group.get("iterations").get(0).asText()).doesNotContain("TESTS_PASS");
    assertThat(json.get("output").asText()).isEqualTo("shipping after 2 pass(es)");
    assertThat(json.get("usage").get("llm_calls").asInt()).isEqualTo(4);
  }

  @Test
  void untilBashEndsTheLoopWhenTheCounterReachesTwo() throws IOException {
    JsonNode json = completed("loop-group-until-bash.yaml");
    assertLoop(json.get("nodes").get("count_up"), 2, "command");
    assertThat(json.get("nodes").get("count_up").get("iterations").get(0).asText()).isEqualTo("counter=1");
    assertThat(json.get("output").asText()).isEqualTo("counter=2");
    assertThat(json.get("nodes").get("cleanup").get("status").asText()).isEqualTo("completed");
  }

  @Test
  void interactiveGroupResumesWithEachAnswer() throws IOException {
    JsonNode json = completed("loop-group-interactive.yaml", "--mock-llm", "--answer", "make it shorter",
        "--answer", "approve");
    JsonNode group = json.get("nodes").get("tagline");
    assertLoop(group, 3, "signal");
    assertThat(group.get("output").asText()).endsWith("<promise>APPROVED</promise>");
    assertThat(json.get("output").asText()).doesNotContain("APPROVED").isNotBlank();
    assertThat(json.get("usage").get("llm_calls").asInt()).isEqualTo(2); // pass 3 skips the model
  }

  @Test
  void interactiveGroupWithoutAnAnswerPausesWithExitThree() throws IOException {
    JsonNode json = run(3, "loop-group-interactive.yaml", "--mock-llm");
    assertThat(json.get("status").asText()).isEqualTo("paused");
    assertThat(json.get("usage").get("llm_calls").asInt()).isEqualTo(1);
    CliTest.Run human = CliTest.cli("run", "../examples/loop-group-interactive.yaml", "--mock-llm", "--quiet");
    assertThat(human.status()).isEqualTo(3);
    assertThat(human.err()).contains("paused at tagline[1].gate: Draft 1:").contains("--answer")
        .contains("loopflow resume run_");
  }

  @Test
  void interactiveGroupRevisesWithTheFeedback() throws IOException {
    JsonNode json = completed("loop-group-interactive.yaml", "--mock-llm", "--answer", "make it shorter",
        "--answer", "approve");
    assertThat(json.get("output").asText()).isEqualTo("Loops that always stop.");
  }

  // ---------------------------------------------------------------------------------------------------------
  // iterator + aggregator

  @Test
  void iteratorCollectsResultsInItemOrder() throws IOException {
    JsonNode json = completed("loop-iterator.yaml");
    JsonNode each = json.get("nodes").get("each_word");
    assertLoop(each, 3, "condition_met");
    assertThat(json.get("nodes").get("collect").get("output").toString())
        .isEqualTo("[\"0: ALPHA (5 chars)\",\"1: BETA (4 chars)\",\"2: GAMMA (5 chars)\"]");
    assertThat(json.get("output").asText()).isEqualTo("0: ALPHA (5 chars) | 1: BETA (4 chars) | 2: GAMMA (5 chars)");
  }
}
