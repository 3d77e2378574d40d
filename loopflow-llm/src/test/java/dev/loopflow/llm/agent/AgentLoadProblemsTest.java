package dev.loopflow.llm.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every problem in an agent's fields is a load problem at file:line:col, never a surprise at run time. Each case
 * marks the line its problem must be reported on with {@code #<}.
 */
class AgentLoadProblemsTest {
  static final Loopflow ENGINE = Loopflow.create();

  @TempDir
  static Path dir;

  static List<Problem> problems(String yaml) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> ENGINE.parse(yaml, dir.resolve("agent.yaml").toString()));
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

  static String agent(String fields) {
    return "nodes:\n  - id: a\n    type: agent\n    model: \"mock:m\"\n    prompt: hi\n" + fields.indent(4);
  }

  static Stream<Arguments> broken() {
    return Stream.of(
        Arguments.of("unknown tool", agent("tools: [htp] #<"), "unknown tool 'htp'"),
        Arguments.of("tool entry not a name", agent("tools: [42] #<"), "expected a tool name"),
        Arguments.of("tools not a list", agent("tools: http #<"), "list"),
        Arguments.of("shell by name", agent("tools: [shell] #<"), "must be enabled explicitly"),
        Arguments.of("shell not allowed", agent("tools: [{shell: {allow: false}}] #<"), "must be enabled explicitly"),
        Arguments.of("shell allow as text", agent("tools: [{shell: {allow: \"yes\"}}] #<"),
            "must be enabled explicitly"),
        Arguments.of("shell timeout not a duration", agent("tools: [{shell: {allow: true, timeout: forever}}] #<"),
            "shell.timeout must be a duration"),
        Arguments.of("shell timeout over an hour", agent("tools: [{shell: {allow: true, timeout: 2h}}] #<"),
            "between 1ms and 1h"),
        Arguments.of("http size zero", agent("tools: [{http: {max_response_bytes: 0}}] #<"),
            "max_response_bytes must be a whole number"),
        Arguments.of("http unknown option", agent("tools: [{http: {follow: true}}] #<"), "unknown option 'follow'"),
        Arguments.of("options not a mapping", agent("tools: [{http: 5}] #<"), "must be a mapping"),
        Arguments.of("restart takes no options", agent("tools: [{request_restart: {target: x}}] #<"),
            "it takes none"),
        Arguments.of("a tool twice", agent("tools: [http, http] #<"), "already offered"),
        Arguments.of("workflow file missing", agent("tools: [{workflow: no/such/file.yaml}] #<"), "does not exist"),
        Arguments.of("workflow path not text", agent("tools: [{workflow: [a, b]}] #<"), "path of a workflow file"),
        Arguments.of("workflow tool name invalid", agent("tools: [{workflow: child.yaml, name: \"my tool\"}] #<"),
            "not a valid tool name"),
        Arguments.of("workflow tool unknown key", agent("tools: [{workflow: child.yaml, inputs: {}}] #<"),
            "unknown option 'inputs'"),
        Arguments.of("workflow child input type", agent("tools: [{workflow: bad-input.yaml}] #<"),
            "input 'x' needs a type name"),
        Arguments.of("workflow not a mapping", agent("tools: [{workflow: list.yaml}] #<"), "does not hold a workflow"),
        Arguments.of("workflow tools named alike", agent("tools: [{workflow: child.yaml}, {workflow: sub/child.yaml}] #<"),
            "already offered"),
        Arguments.of("mcp both command and url", agent("mcp: [{command: [srv], url: \"http://h/mcp\"}] #<"),
            "exactly one of command"),
        Arguments.of("mcp neither", agent("mcp: [{env: {A: b}}] #<"), "exactly one of command"),
        Arguments.of("mcp command empty", agent("mcp: [{command: []}] #<"), "command must be a list"),
        Arguments.of("mcp command as text", agent("mcp: [{command: \"npx some-server\"}] #<"), "command must be a list"),
        Arguments.of("mcp command item not text", agent("mcp: [{command: [npx, 3]}] #<"), "non-empty strings"),
        Arguments.of("mcp url not http", agent("mcp: [{url: \"ftp://h/mcp\"}] #<"), "http:// or https://"),
        Arguments.of("mcp env with url", agent("mcp: [{url: \"http://h/mcp\", env: {A: b}}] #<"), "env: applies"),
        Arguments.of("mcp env value a list", agent("mcp: [{command: [srv], env: {A: [1]}}] #<"), "env.A must be text"),
        Arguments.of("mcp unknown key", agent("mcp: [{command: [srv], cwd: /tmp}] #<"), "unknown option 'cwd'"),
        Arguments.of("mcp timeout zero", agent("mcp: [{command: [srv], timeout: 0}] #<"), "timeout must be a duration"),
        Arguments.of("mcp entry not a mapping", agent("mcp: [srv] #<"), "expected {command"),
        Arguments.of("max_turns zero", agent("max_turns: 0 #<"), "max_turns"),
        Arguments.of("max_turns over the limit", agent("max_turns: 101 #<"), "max_turns"),
        Arguments.of("max_turns as words", agent("max_turns: ten #<"), "max_turns"),
        Arguments.of("unknown field", agent("tool: [http] #<"), "unknown field 'tool'"),
        Arguments.of("a provider without a model", """
            nodes:
              - id: a
                type: agent
                model: "openai:" #<
                prompt: hi
            """, "names no model after the provider"),
        Arguments.of("missing prompt", """
            nodes:
              - id: a #<
                type: agent
                model: "mock:m"
                tools: [http]
            """, "missing required field 'prompt'"),
        Arguments.of("empty prompt", """
            nodes:
              - id: a
                type: agent
                model: "mock:m"
                prompt: "" #<
            """, "'prompt' must not be empty"),
        Arguments.of("blank llm prompt", """
            nodes:
              - id: a
                type: llm
                model: "mock:m"
                prompt: "  " #<
            """, "'prompt' must not be empty"),
        Arguments.of("no llm messages", """
            nodes:
              - id: a
                type: llm
                model: "mock:m"
                messages: [] #<
            """, "'messages' must not be empty"),
        Arguments.of("unpriced model under max_usd", """
            budget: {max_usd: 1}
            nodes:
              - id: a
                type: agent
                model: "ollama:tiny" #<
                prompt: hi
            """, "has no known price"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("broken")
  void aBrokenAgentFieldIsAProblemAtItsLine(String label, String yaml, String message) throws Exception {
    Files.writeString(dir.resolve("child.yaml"), "name: child\ninput: {q: string}\nnodes: [{id: t, type: transform, "
        + "template: x}]\n");
    Files.createDirectories(dir.resolve("sub"));
    Files.writeString(dir.resolve("sub/child.yaml"), "nodes: [{id: t, type: transform, template: x}]\n");
    Files.writeString(dir.resolve("bad-input.yaml"), "input: {x: 5}\nnodes: [{id: t, type: transform, template: x}]\n");
    Files.writeString(dir.resolve("list.yaml"), "- a\n- b\n");

    List<Problem> problems = problems(yaml);

    assertThat(problems).as("%s", problems).anySatisfy(p -> {
      assertThat(p.message()).contains(message);
      assertThat(p.location().line()).isEqualTo(markedLine(yaml));
      assertThat(p.location().file()).endsWith("agent.yaml");
    });
  }

  @Test
  void everyProblemOfAnAgentIsReportedAtOnce() {
    List<Problem> problems = problems(agent("""
        tools: [htp, {shell: {allow: false}}]
        mcp: [{command: []}]
        max_turns: 0
        """));

    assertThat(problems).extracting(Problem::message).anyMatch(m -> m.contains("unknown tool 'htp'"))
        .anyMatch(m -> m.contains("must be enabled explicitly")).anyMatch(m -> m.contains("command must be a list"))
        .anyMatch(m -> m.contains("max_turns"));
  }

  @Test
  void anEntryOfABlockListIsNamedByItsIndexAtTheList() {
    String yaml = agent("""
        tools:
          - http #<
          - shared_memory_read
          - htp
        """);

    assertThat(problems(yaml)).singleElement().satisfies(p -> {
      assertThat(p.message()).startsWith("tools[2]: unknown tool 'htp'");
      assertThat(p.location().line()).isEqualTo(markedLine(yaml));
    });
  }

  @Test
  void aValidAgentLoadsWithEveryKindOfTool() throws Exception {
    Files.writeString(dir.resolve("lookup.yaml"), """
        description: Looks a word up.
        input:
          word: string
          lang: {type: string, default: en}
        nodes: [{id: t, type: transform, template: "{{ input.word }}"}]
        """);

    ENGINE.parse(agent("""
        tools:
          - {http: {timeout: 5s, max_response_bytes: 1000}}
          - {shell: {allow: true, timeout: 1m30s, max_output_bytes: 4096}}
          - request_restart
          - shared_memory_read
          - {shared_memory_write: null}
          - {workflow: lookup.yaml}
          - {workflow: lookup.yaml, name: define, description: "Defines a word."}
        mcp:
          - {command: [npx, -y, some-server], env: {TOKEN: abc, LEVEL: 3}, timeout: 90}
          - {url: "https://example.com/mcp", timeout: 10s}
        max_turns: 100
        """), dir.resolve("agent.yaml").toString());
  }
}
