package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CliTest {
  @TempDir
  Path dir;

  record Run(int status, String out, String err) {}

  static Run cli(String... args) {
    java.io.StringWriter out = new java.io.StringWriter();
    java.io.StringWriter err = new java.io.StringWriter();
    // The real command line, error handling included, so tests see exactly what a user sees.
    CommandLine cl = Main.commandLine(args);
    cl.setOut(new java.io.PrintWriter(out));
    cl.setErr(new java.io.PrintWriter(err));
    int status = cl.execute(args);
    return new Run(status, out.toString(), err.toString());
  }

  @Test
  void runJsonPrintsExactlyTheResultObjectForEveryExample() throws Exception {
    for (String ex : new String[] {"hello-shell", "lua-pipeline", "router", "review-llm"}) {
      Run r = cli("run", "../examples/" + ex + ".yaml", "--json", "--quiet");
      assertThat(r.status()).as(ex + ": " + r.err()).isZero();
      JsonNode json = new ObjectMapper().readTree(r.out());
      assertThat(json.fieldNames()).toIterable().containsExactly("run_id", "status", "output", "state", "nodes",
          "usage", "error");
      assertThat(json.get("status").asText()).isEqualTo("completed");
      assertThat(json.get("error").isNull()).isTrue();
    }
  }

  @Test
  void failedRunExitsOneWithErrorObject() throws Exception {
    Path wf = dir.resolve("fail.yaml");
    Files.writeString(wf, """
        nodes:
          - id: boom
            bash: "echo oops >&2; exit 3"
          - id: after
            bash: echo never
        """);
    Run r = cli("run", wf.toString(), "--json", "--quiet");
    assertThat(r.status()).isEqualTo(1);
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("status").asText()).isEqualTo("failed");
    assertThat(json.get("error").get("code").asText()).isEqualTo("node_failed");
    assertThat(json.get("error").get("node").asText()).isEqualTo("boom");
    assertThat(json.get("nodes").get("boom").get("exitCode").asInt()).isEqualTo(3);
    assertThat(json.get("nodes").get("after").get("status").asText()).isEqualTo("not_run");
  }

  @Test
  void invalidWorkflowExitsTwoAndListsEveryProblem() throws Exception {
    Path wf = dir.resolve("bad.yaml");
    Files.writeString(wf, """
        nodes:
          - id: a
            type: shel
          - id: b
            bash: echo {{ nope.text }}
        """);
    Run r = cli("validate", wf.toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains(wf + ":3:11: nodes.a.type: unknown node kind 'shel' (did you mean 'shell'?)")
        .contains(wf + ":5:19: nodes.b.bash: unknown reference 'nope'");
    assertThat(cli("run", wf.toString()).status()).isEqualTo(2);
  }

  @Test
  void inputThatDoesNotConvertIsAUsageErrorNamingTheInput() throws Exception {
    Path wf = dir.resolve("in.yaml");
    Files.writeString(wf, """
        input:
          n: integer
        nodes:
          - id: a
            type: transform
            template: "{{ input.n + 1 }}"
        """);
    Run bad = cli("run", wf.toString(), "--input", "n=abc");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("input 'n' must be an integer, got 'abc'");
    assertThat(cli("run", wf.toString()).err()).contains("missing input 'n'").contains("pass it with --input n=...");
    Run ok = cli("run", wf.toString(), "--input", "n=41", "--quiet");
    assertThat(ok.out().strip()).isEqualTo("42");
  }

  @Test
  void mockLlmOptionAnswersEveryCallFromTheScript() throws Exception {
    Path wf = dir.resolve("llm.yaml");
    Files.writeString(wf, """
        flow:
          name: coder
          input: {task: string}
        nodes:
          - id: coder
            type: claude.agent
            input:
              prompt: "Implement: {{ flow.input.task }}"
        """);
    Path script = dir.resolve("script.json");
    Files.writeString(script, "{\"coder\": [\"def add(a, b): return a + b\"]}");
    Run r = cli("run", wf.toString(), "--input", "task=add", "--mock-script", script.toString(), "--json", "--quiet");
    assertThat(r.status()).as(r.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("output").asText()).isEqualTo("def add(a, b): return a + b");
    assertThat(json.get("nodes").get("coder").get("mock").asBoolean()).isTrue();
    assertThat(json.get("nodes").get("coder").get("provider").asText()).isEqualTo("mock");
  }

  @Test
  void graphPrintsMermaidAndDot() {
    Run m = cli("graph", "../examples/router.yaml");
    assertThat(m.out()).startsWith("flowchart TD").contains("n_classify -->|\"billing\"| n_billing");
    Run d = cli("graph", "../examples/router.yaml", "--format", "dot");
    assertThat(d.out()).startsWith("digraph").contains("\"classify\" -> \"billing\" [label=\"billing\"]");
  }

  @Test
  void eventsJsonlHoldsEveryEvent() throws Exception {
    Path events = dir.resolve("events.jsonl");
    Run r = cli("run", "../examples/hello-shell.yaml", "--quiet", "--events-jsonl", events.toString());
    assertThat(r.status()).isZero();
    var lines = Files.readAllLines(events);
    assertThat(lines.get(0)).contains("\"type\":\"run.started\"");
    assertThat(lines.get(lines.size() - 1)).contains("\"type\":\"run.finished\"");
    assertThat(lines).anyMatch(l -> l.contains("\"type\":\"node.skipped\""));
  }

  @Test
  void everyCommandsHelpShowsAnExample() {
    for (String c : new String[] {"run", "validate", "graph"}) {
      assertThat(cli(c, "--help").out()).contains("Example");
    }
  }

}
