package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A shell command is read the way the shell reads it (quotes, comments, heredocs, $( ), ${ }, backquotes), so
 * every value is quoted for the place it lands in and arrives exactly as it was, in sh and in bash; and only
 * template tags that print nothing are accepted, so the command text is the workflow's own.
 */
class ShellCommandReadingTest {
  private static final Loopflow ENGINE = Loopflow.create();
  private static final String V = "{{ input.v }}";

  @TempDir
  Path tmp;

  /** A command printing the value in some context, and what it prints for a value v. */
  record Context(String name, String field, String command, UnaryOperator<String> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Context bash(String name, String command) {
    return bash(name, command, v -> v);
  }

  private static Context bash(String name, String command, UnaryOperator<String> expected) {
    return new Context(name, "bash", command.replace("V", V), expected);
  }

  private static Context sh(String name, String command) {
    return new Context(name, "command", command.replace("V", V), v -> v);
  }

  static List<Context> contexts() {
    return List.of(
        bash("bare word", "printf %s V"),
        bash("double quotes", "printf %s \"<V>\"", v -> "<" + v + ">"),
        bash("single quotes", "printf %s '<V>'", v -> "<" + v + ">"),
        bash("$'...'", "printf %s $'<\\tV>'", v -> "<\t" + v + ">"),
        bash("${x:-V}", "printf %s ${nope:-V}"),
        bash("\"${x:-V}\"", "printf %s \"${nope:-V}\""),
        bash("\"${x:-'V'}\"", "printf %s \"${nope:-'V'}\"", v -> "'" + v + "'"),
        bash("${x:+\"V\"}", "x=1; printf %s ${x:+\"V\"}"),
        bash("assignment", "x=V; printf %s \"$x\""),
        bash("array literal", "a=(V V); printf %s \"${a[1]}\""),
        bash("here-string", "cat <<< V"),
        bash("heredoc", "cat <<EOF\nV\nEOF"),
        bash("heredoc with quotes", "cat <<EOF\n\"V\" 'V'\nEOF", v -> "\"" + v + "\" '" + v + "'"),
        bash("heredoc <<-", "cat <<-EOF\n\tV\n\tEOF"),
        bash("heredoc with space", "cat << \"EOF\" >/dev/null\n$(nothing) 'it's\nEOF\ncat <<END\nV\nEND"),
        bash("two heredocs", "cat <<A; cat <<B\nV\nA\nV\nB", v -> v + "\n" + v),
        bash("heredoc $( )", "cat <<EOF\n$(printf %s \"V\")\nEOF"),
        bash("heredoc line continued", "cat <<EOF\nx\\\nEOF\n(( V )) EOF\nEOF", v -> "xEOF\n(( " + v + " )) EOF"),
        bash("comment with a quote", "# it's a \"comment\" V\nprintf %s V"),
        bash("comment after a command", "true # don't V\nprintf %s V"),
        bash("not a comment", "printf %s a#V", v -> "a#" + v),
        bash("$( )", "printf %s \"$(printf %s V)\""),
        bash("\"$( \"\" )\"", "printf %s \"<$(printf %s \"V\")>\"", v -> "<" + v + ">"),
        bash("backquotes", "printf %s \"`printf %s V`\""),
        bash("case pattern", "case V in V) printf %s V;; *) echo other;; esac"),
        bash("[[ == ]]", "[[ V == V ]] && printf %s yes", v -> "yes"),
        bash("[[ =~ ]]", "[[ V =~ V ]] && printf %s yes", v -> "yes"),
        bash("test -z", "test -z \"V\" || printf %s V"),
        bash("function", "f() { printf %s \"$1\"; }; f V"),
        bash("subshell", "( printf %s V )"),
        bash("group", "{ printf %s V; }"),
        bash("pipe", "printf %s V | cat"),
        bash("redirect", "printf %s V > out; cat out"),
        bash("if tag", "{% if input.v is defined %}printf %s V{% else %}echo none{% endif %}"),
        bash("if tag around quotes",
            "printf %s {% if true %}\"{% endif %}V{% if true %}\"{% endif %}"),
        bash("comment tag", "printf %s {# a note #}V"),
        bash("raw tag", "x=abc; printf %s {% raw %}\"${#x}\"{% endraw %}V", v -> "3" + v),
        bash("backslash before", "printf %s \"a\\V\"", v -> "a\\" + v),
        bash("dollar before", "printf %s $V", v -> "$" + v),
        bash("{{- trims", "printf %s \"x  {{- input.v }}\"", v -> "x" + v),
        bash("bash -c argument", "bash -c 'printf %s \"$1\"' _ V"),
        sh("sh bare word", "printf %s V"),
        sh("sh double quotes", "printf %s \"V\""),
        sh("sh single quotes", "printf %s 'V'"),
        sh("sh heredoc", "cat <<EOF\nV\nEOF"),
        sh("sh comment with a quote", "# it's V\nprintf %s V"),
        sh("sh ${x:-\"V\"}", "printf %s \"${nope:-\"V\"}\""));
  }

  /** Values that would run "touch F" if spliced into the command, and awkward data. */
  static List<String> values() {
    return List.of(
        "plain",
        "two  spaces  *  and a glob",
        "$(touch @F@)",
        "`touch @F@`",
        "'; touch @F@; '",
        "\"; touch @F@; \"",
        "a[$(touch @F@)]",
        "$'\\x27'",
        "${x@P}",
        "line one\ntouch @F@\nEOF\ntouch @F@\nEND",
        "EOF",
        "\\\" \\' \\\\ \\",
        "-n",
        "{{ 7*7 }} {% if true %}T{% endif %} $LOOP_PREV.x.output",
        "# not a comment",
        "ünïcödé ✓ 日本",
        "");
  }

  static Stream<Arguments> cases() {
    List<Arguments> all = new ArrayList<>();
    for (Context c : contexts()) {
      for (String v : values()) {
        all.add(Arguments.of(c, v));
      }
    }
    return all.stream();
  }

  private Path marker() {
    return tmp.resolve("pwned");
  }

  private RunResult run(String field, String command, String value) {
    Workflow wf = ENGINE.workflow("shell").node("sh", "shell", Map.of(field, command)).build();
    return ENGINE.run(wf, RunOptions.builder().input("v", value).workingDirectory(tmp).build());
  }

  private Workflow parse(String yaml) {
    return ENGINE.parse(yaml, "shell.yaml");
  }

  private static List<String> problems(Runnable load) {
    try {
      load.run();
    } catch (WorkflowInvalidException e) {
      return e.problems().stream().map(Problem::format).toList();
    }
    throw new AssertionError("the workflow loaded");
  }

  @ParameterizedTest(name = "{0} <- {1}")
  @MethodSource("cases")
  void valueArrivesExactlyAsItWas(Context c, String value) {
    String v = value.replace("@F@", marker().toString());
    if (c.name().contains("[[ =~ ]]") && v.isEmpty()) {
      return; // an empty regex is a shell syntax error, not a question of quoting
    }
    RunResult r = run(c.field(), c.command(), v);

    assertThat(marker()).as("the marker file").doesNotExist();
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo(c.expected().apply(v));
  }

  @Test
  void quoteInACommentDoesNotConfuseQuoting_bugCommentQuotes() {
    // The apostrophe used to open a quote that never closed, so the value below was placed as if quoted and
    // reached printf as the literal text of the variable reference.
    RunResult r = run("bash", "# the user's name\nprintf '%s|' " + V + "\n", "* two  words");

    assertThat(r.output()).isEqualTo("* two  words|");
  }

  @Test
  void heredocBodyGetsTheValue_bugHeredocQuoting() throws Exception {
    java.nio.file.Files.writeString(tmp.resolve("a.txt"), "");
    RunResult r = run("bash", "cat <<EOF\nit's \"" + V + "\"\nEOF\nprintf '%s' " + V, "* $(id)");

    assertThat(r.output()).isEqualTo("it's \"* $(id)\"\n* $(id)");
  }

  @Test
  void heredocDelimiterInTheValueDoesNotEndTheBody_bugHeredocQuoting() {
    String v = "x\nEOF\ntouch " + marker();
    RunResult r = run("bash", "cat <<EOF\n" + V + "\nEOF", v);

    assertThat(r.output()).isEqualTo(v);
    assertThat(marker()).doesNotExist();
  }

  @Test
  void heredocEndsAtItsFirstDelimiterLineEvenInsideASubstitution_bugHeredocQuoting() {
    // Bash collects a heredoc body line by line before it parses it, so the first EOF line ends the body even
    // though a $( is open in it: the (( )) line below is a command for bash, not heredoc text.
    String command = "cat <<EOF\n$(cat <<X\nEOF\ncat <<Y\nX\n)\nY\n(( " + V + " > 1 )) && echo big\nEOF";
    RunResult r = run("bash", command, "a[$(touch " + marker() + ")]");

    assertThat(marker()).doesNotExist();
    assertThat(r.error().details()).containsEntry("rule", "integer");
  }

  @Test
  void valueInAQuotedHeredocIsALoadError_bugHeredocQuoting() {
    List<String> problems = problems(() -> parse("""
        name: shell
        nodes:
          - id: sh
            bash: |
              cat <<'EOF'
              {{ input.v }}
              EOF
        """));

    assertThat(problems).containsExactly("shell.yaml:6:11: nodes.sh.bash: {{ input.v }} is in the body of a heredoc "
        + "whose delimiter is quoted (EOF), where the shell expands nothing, so the value would never arrive; use an "
        + "unquoted delimiter (<<EOF) and write any other $, ` and \\ in the body as \\$, \\` and \\\\");
  }

  @ParameterizedTest
  @ValueSource(strings = {"<<\"EOF\"", "<<\\EOF", "<<-'EOF'", "<< 'E'OF"})
  void everyQuotedHeredocDelimiterKeepsValuesOut_bugHeredocQuoting(String op) {
    String body = op.startsWith("<<-") ? "\t" : "";
    List<String> problems = problems(() -> ENGINE.workflow("w")
        .node("sh", "shell", Map.of("bash", "cat " + op + "\n" + body + V + "\n" + body + "EOF")).build());

    assertThat(problems).singleElement().asString().contains("is in the body of a heredoc whose delimiter is quoted");
  }

  @Test
  void valueAsAHeredocDelimiterIsALoadError() {
    List<String> problems = problems(() -> ENGINE.workflow("w")
        .node("sh", "shell", Map.of("bash", "cat <<" + V + "\nx\n")).build());

    assertThat(problems).singleElement().asString().contains("{{ input.v }} cannot be a heredoc delimiter");
  }

  @Test
  void valueInAQuotedHeredocChosenByATagFailsTheNodeBeforeRunning() {
    Workflow wf = ENGINE.workflow("shell").node("sh", "shell", Map.of("bash",
        "touch ran; cat {% if input.q %}<<'EOF'{% else %}<<EOF{% endif %}\n" + V + "\nEOF")).build();

    RunResult unquoted = ENGINE.run(wf, RunOptions.builder().input("v", "x").input("q", false)
        .workingDirectory(tmp).build());
    assertThat(unquoted.output()).isEqualTo("x");

    java.nio.file.Path other = tmp.resolve("other");
    other.toFile().mkdirs();
    RunResult quoted = ENGINE.run(wf, RunOptions.builder().input("v", "x").input("q", true)
        .workingDirectory(other).build());
    assertThat(quoted.status()).isEqualTo(RunStatus.FAILED);
    assertThat(quoted.error().code()).isEqualTo("node_failed");
    assertThat(quoted.error().message()).contains("bash: {{ input.v }} is in the body of a heredoc");
    assertThat(other.resolve("ran")).as("nothing ran").doesNotExist();
  }

  @ParameterizedTest
  @ValueSource(strings = {"{% print input.v %}", "{% for x in input.xs %}{{ x }}{% endfor %}",
      "{% set y = input.v %}{{ y }}", "{% macro m() %}x{% endmacro %}{{ m() }}", "{% filter upper %}x{% endfilter %}",
      "{% cycle 'a','b' %}", "{% do input.v %}", "{% include 'x.j2' %}", "{% autoescape %}x{% endautoescape %}",
      "{% call m() %}x{% endcall %}", "{% unless false %}x{% endunless %}"})
  void tagThatPutsTextIntoTheCommandIsALoadError_bugTagsSplicedRawText(String tag) {
    List<String> problems = problems(() -> parse("""
        name: shell
        nodes:
          - id: sh
            bash: |
              echo start
              echo %s
        """.formatted(tag)));

    String name = tag.substring(3, tag.indexOf(' ', 3));
    assertThat(problems).first().asString().startsWith("shell.yaml:6:11: nodes.sh.bash: {% " + name + " %} cannot be "
        + "used in a shell command: only {% if %}, {% elif %}, {% else %}, {% endif %}, {% raw %} and {# comments #} "
        + "can").contains("argv form").contains("join(' ')").contains("script node");
  }

  @Test
  void forLoopValuesAreRefusedInsteadOfRenderingEmpty_bugArgsRenderedOutsideTheLoop() {
    // The loop's {{ item }} used to be rendered outside the loop, where item is empty: every item printed empty.
    List<String> problems = problems(() -> ENGINE.workflow("w").node("sh", "shell",
        Map.of("bash", "{% for item in input.xs %}echo {{ item }};{% endfor %}")).build());

    assertThat(problems).singleElement().asString().contains("{% for %} cannot be used in a shell command");
  }

  @Test
  void aStrayEndTagIsReportedToo() {
    List<String> problems = problems(() -> ENGINE.workflow("w").node("sh", "shell",
        Map.of("bash", "echo x {% endfor %}")).build());

    assertThat(problems).singleElement().asString().contains("{% endfor %} cannot be used in a shell command");
  }

  @Test
  void theArgvFormAndJoinAreTheWaysToPassAList() {
    Workflow argv = ENGINE.workflow("w").node("sh", "shell", Map.of("command", List.of("printf", "<%s>",
        "{{ input.xs[0] }}", "{{ input.xs[1] }}"))).build();
    Workflow joined = ENGINE.workflow("w").node("sh", "shell", Map.of("bash",
        "printf '<%s>' {{ input.xs | join(' ') }}")).build();
    List<String> xs = List.of("$(touch " + marker() + ")", "b c");

    assertThat(ENGINE.run(argv, RunOptions.builder().input("xs", xs).workingDirectory(tmp).build()).output())
        .isEqualTo("<" + xs.get(0) + "><b c>");
    assertThat(ENGINE.run(joined, RunOptions.builder().input("xs", xs).workingDirectory(tmp).build()).output())
        .isEqualTo("<" + xs.get(0) + " b c>");
    assertThat(marker()).doesNotExist();
  }

  @ParameterizedTest
  @ValueSource(strings = {"eval \"echo V\"", "eval echo V", "trap 'rm -f V' EXIT", "bash -c \"echo V\"",
      "sh -ec 'echo V'", "/bin/bash -c 'echo V'", "command eval 'echo V'", "mapfile -C 'echo V' -c 1 x < /dev/null",
      "python3 -c \"print('V')\"", "python3.12 -c 'V'", "node -e \"console.log('V')\"", "perl -ne 'print \"V\"'",
      "ruby -e 'puts \"V\"'", "awk '{ print \"V\" }'", "awk -F, -v n=1 '{ print \"V\" }' data.csv",
      "sed \"s/x/V/\"", "sed -n -e \"s/x/V/p\" f", "sed --expression=\"s/x/V/\" f", "ssh -p 22 host \"echo V\"",
      "env FOO=1 bash -c 'echo V'", "sudo -u me sh -c 'V'", "timeout 5 bash -c 'V'", "xargs -n 1 sh -c 'echo V'",
      "su -c 'V' someone", "nice -n 5 nohup python3 -c 'V'"})
  void valueInsideCodeForAShellOrInterpreterIsALoadError(String command) {
    List<String> problems = problems(() -> ENGINE.workflow("w").node("sh", "shell",
        Map.of("bash", command.replace("V", V))).build());

    assertThat(problems).singleElement().asString().contains("{{ input.v }} is used in shell code");
  }

  @ParameterizedTest
  @ValueSource(strings = {"bash -c 'printf %s \"$1\"' _ V", "python3 script.py V", "python3 -m json.tool V",
      "awk -v x=V '{ print x }' file", "awk -f prog.awk V", "sed -e 's/a/b/' V", "sed 's/a/b/' V", "ssh V uptime",
      "env FOO=V printenv FOO", "timeout V sleep 1", "node app.js V", "perl script.pl V", "grep -e V file",
      "xargs -I {} echo V"})
  void valuesPassedAsDataToTheseProgramsAreFine(String command) {
    Workflow wf = ENGINE.workflow("w").node("sh", "shell", Map.of("bash", command.replace("V", V))).build();

    assertThat(wf).isNotNull();
  }

  @Test
  void theShellsLengthOperatorNeedsRawAndTheErrorSaysSo() {
    List<String> problems = problems(() -> ENGINE.workflow("w").node("sh", "shell",
        Map.of("bash", "a=(1 2); echo ${#a[@]}")).build());

    assertThat(problems).singleElement().asString().contains("{% raw %}${#name}{% endraw %}");
  }

  @Test
  void reservedVariableNamesAreALoadError() {
    List<String> problems = problems(() -> ENGINE.workflow("w").node("sh", "shell",
        Map.of("bash", "echo $LOOPFLOW_ARG_1")).build());

    assertThat(problems).singleElement().asString().contains("names starting with LOOPFLOW_ARG_ are reserved");
  }

  @Test
  void untilBashProblemsNameTheFieldAsWritten() {
    List<String> problems = problems(() -> parse("""
        name: shell
        nodes:
          - id: g
            loop_group:
              max_iterations: 2
              until_bash: "{% print input.v %}"
              nodes:
                - id: a
                  bash: echo hi
        """));

    assertThat(problems).singleElement().asString().startsWith("shell.yaml:6:19: nodes.g.until_bash: {% print %}");
  }
}
