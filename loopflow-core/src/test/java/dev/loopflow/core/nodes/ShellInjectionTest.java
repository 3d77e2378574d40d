package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Values reach shell commands as data: never spliced into the command text, never evaluated as templates. */
class ShellInjectionTest {
  private final Loopflow engine = Loopflow.create();

  @TempDir
  Path tmp;

  private RunResult run(String command, Object x) {
    Workflow wf = engine.parse("""
        name: shell
        nodes:
          - id: sh
            command: %s
        """.formatted(command), "shell.yaml");
    return engine.run(wf, RunOptions.builder().input("x", x).workingDirectory(tmp).build());
  }

  private String payload(String marker) {
    return "$(touch " + tmp.resolve(marker) + "); `touch " + tmp.resolve(marker + "-bt") + "`; {{ 7*7 }} {% if true %}T{% endif %}";
  }

  private void assertNothingWasCreated() throws Exception {
    try (var files = Files.list(tmp)) {
      assertThat(files.toList()).as("files created by the payload").isEmpty();
    }
  }

  @Test
  void unquotedPlaceholderPassesTheValueLiterally() throws Exception {
    String x = payload("pwned-plain");
    RunResult r = run("'echo {{ input.x }}'", x);

    assertThat(r.error()).isNull();
    assertThat(r.output()).isEqualTo(x);
    assertThat(r.nodes().get("sh")).containsEntry("stdout", x + "\n").containsEntry("exitCode", 0);
    assertNothingWasCreated();
  }

  @Test
  void placeholderInsideDoubleQuotesStaysOneLiteralArgument() throws Exception {
    String x = payload("pwned-dq") + " \" ; touch " + tmp.resolve("pwned-dq2") + " ; echo \"";
    RunResult r = run("'printf \"[%s]\" \"value: {{ input.x }}\"'", x);

    assertThat(r.error()).isNull();
    assertThat(r.output()).isEqualTo("[value: " + x + "]");
    assertNothingWasCreated();
  }

  @Test
  void placeholderInsideSingleQuotesStaysOneLiteralArgument() throws Exception {
    String x = payload("pwned-sq") + " ' ; touch " + tmp.resolve("pwned-sq2") + " ; echo '";
    RunResult r = run("\"printf '[%s]' 'value: {{ input.x }}'\"", x);

    assertThat(r.error()).isNull();
    assertThat(r.output()).isEqualTo("[value: " + x + "]");
    assertNothingWasCreated();
  }

  @Test
  void escapedQuotesOutsideQuotingDoNotConfuseThePlacement() throws Exception {
    Files.writeString(tmp.resolve("file-a"), "");
    assertThat(run("'echo it\\''s {{ input.x }}'", "$(id)").output()).isEqualTo("it's $(id)");
    assertThat(run("'echo \\\"{{ input.x }}\\\"'", "* two  spaces").output()).isEqualTo("\"* two  spaces\"");
    assertThat(run("'echo \"a \\\" {{ input.x }}\"'", "* $(id)").output()).isEqualTo("a \" * $(id)");
  }

  @Test
  void placeholderInACommandSubstitutionInsideDoubleQuotesIsQuotedForItsOwnContext() throws Exception {
    Files.writeString(tmp.resolve("file-a"), "");
    assertThat(run("'echo \"<$(printf \"%s|\" {{ input.x }})>\"'", "* two  words").output())
        .isEqualTo("<* two  words|>");
    assertThat(run("'echo \"$(echo $((1 + 2)) {{ input.x }})\"'", "*").output()).isEqualTo("3 *");
    assertThat(run("'echo \"$( (printf %s {{ input.x }}) )\" {{ input.x }}'", "a  *").output())
        .isEqualTo("a  * a  *");
  }

  @Test
  void valueWithSpacesAndGlobsIsNotSplitOrExpanded() throws Exception {
    Files.writeString(tmp.resolve("a.txt"), "");
    RunResult r = run("'printf \"<%s>\" {{ input.x }}'", "two  words *");

    assertThat(r.output()).isEqualTo("<two  words *>");
  }

  @Test
  void argvListRunsWithoutAShell() throws Exception {
    String x = payload("pwned-argv") + "; rm -rf " + tmp;
    Workflow wf = engine.parse("""
        name: argv
        nodes:
          - id: sh
            command: [printf, "%s|%s", "{{ input.x }}", "second {{ input.n }}"]
        """, "argv.yaml");

    RunResult r = engine.run(wf, RunOptions.builder().input("x", x).input("n", 2).workingDirectory(tmp).build());

    assertThat(r.error()).isNull();
    assertThat(r.output()).isEqualTo(x + "|second 2");
    assertNothingWasCreated();
  }

  @Test
  void templateTagsInTheCommandStillWork() {
    RunResult r = run("'echo {% if input.x == \"yes\" %}agreed{% else %}declined{% endif %}'", "yes");

    assertThat(r.output()).isEqualTo("agreed");
  }

  @Test
  void nonStringValuesArriveAsJson() {
    RunResult r = run("'printf %s {{ input.x }}'", Map.of("k", java.util.List.of(1, 2)));

    assertThat(r.output()).isEqualTo("{\"k\":[1,2]}");
  }

  @Test
  void nonZeroExitFailsTheNodeKeepingItsOutput() {
    RunResult r = run("'echo out; echo err >&2; exit 7'", "");

    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().message()).isEqualTo("shell node 'sh' failed: command exited with status 7: err");
    assertThat(r.nodes().get("sh"))
        .containsEntry("status", "failed")
        .containsEntry("exitCode", 7)
        .containsEntry("stdout", "out\n")
        .containsEntry("stderr", "err\n")
        .containsEntry("output", "out");
  }

  @Test
  void envValuesAreRenderedAndPassedAsVariables() {
    Workflow wf = engine.parse("""
        name: env
        nodes:
          - id: sh
            command: 'printf %s "$GREETING"'
            env:
              GREETING: "hi {{ input.x }}"
        """, "env.yaml");

    RunResult r = engine.run(wf, RunOptions.builder().input("x", "$(id)").workingDirectory(tmp).build());

    assertThat(r.output()).isEqualTo("hi $(id)");
  }
}
