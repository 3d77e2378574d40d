package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ShellValueRejectedException.Rule;
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
 * Bash evaluates arithmetic operands and variable names recursively and expands the array subscripts it meets
 * on the way, so a value such as {@code a[$(touch F)]} runs touch even when it arrives as "${VAR}". Each value is
 * run through real bash and sh subprocesses in every context where that happens; the marker file must never
 * appear, and the run either prints the right answer or fails, before running anything, with a
 * ShellValueRejectedException (code node_failed, details naming the field, the template and the rule).
 */
class ShellValueSafetyTest {
  private static final Loopflow ENGINE = Loopflow.create();
  private static final String V = "{{ input.v }}";

  @TempDir
  Path tmp;

  /** A command with {{ input.v }} where the shell evaluates it, a value that works there and what it prints. */
  record Context(String name, String field, String command, String good, String printed) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Context bash(String name, String command, String good, String printed) {
    return new Context(name, "bash", command.replace("V", V), good, printed);
  }

  private static Context sh(String name, String command, String good, String printed) {
    return new Context(name, "command", command.replace("V", V), good, printed);
  }

  /** Places where the value itself is evaluated as arithmetic. */
  static List<Context> arithmetic() {
    return List.of(
        bash("[[ V -gt ]]", "[[ V -gt 3 ]] && echo yes", "5", "yes"),
        bash("[[ -lt V ]]", "[[ 3 -lt V ]] && echo yes", "5", "yes"),
        bash("[[ \"V\" -eq ]]", "[[ \"V\" -eq 5 ]] && echo yes", "5", "yes"),
        bash("[[ ( V -ne ) ]]", "[[ ( V -ne 4 ) && 1 -le 2 ]] && echo yes", "5", "yes"),
        bash("if [[ -ge ]]", "if [[ V -ge 5 ]]; then echo yes; fi", "5", "yes"),
        bash("(( ))", "(( V > 3 )) && echo yes", "5", "yes"),
        bash("if((", "if((V > 3)); then echo yes; fi", "5", "yes"),
        bash("!((", "!((V < 3)) && echo yes", "5", "yes"),
        bash("(( \"\" ))", "(( \"V\" > 3 )) && echo yes", "5", "yes"),
        bash("while (( ))", "while (( V < 3 )); do :; done; echo done", "5", "done"),
        bash("for (( ))", "for (( i = 0; i < V; i++ )); do printf x; done", "5", "xxxxx"),
        bash("$(( ))", "echo $(( V * 2 ))", "5", "10"),
        bash("\"$(( ))\"", "echo \"$(( V + 1 ))\"", "5", "6"),
        bash("$[ ]", "echo $[ V + 1 ]", "5", "6"),
        bash("let \"\"", "let \"x = V + 1\"; echo $x", "5", "6"),
        bash("let x=", "let x=V+1; echo $x", "5", "6"),
        bash("\\let", "\\let x=V+1; echo $x", "5", "6"),
        bash("'let'", "'let' x=V+1; echo $x", "5", "6"),
        bash("builtin let", "builtin let x=V+1; echo $x", "5", "6"),
        bash("\"declare\" \"-i\"", "\"declare\" \"-i\" n=V; echo $n", "5", "5"),
        bash("${a[V]}", "a=(p q r s t u); echo ${a[V]}", "5", "u"),
        bash("\"${a[V]}\"", "a=(p q r s t u); echo \"${a[V]:-none}\"", "5", "u"),
        bash("a[V]=", "a=(); a[V]=hi; echo ${a[5]}", "5", "hi"),
        bash("([V]=)", "a=([V]=hi); echo ${a[5]}", "5", "hi"),
        bash("${s:V}", "s=abcdefghij; echo ${s:V:2}", "5", "fg"),
        bash("${s:1:V}", "s=abcdefghij; echo \"${s:1:V}\"", "5", "bcdef"),
        bash("${@:V}", "set -- a b c d e f; echo \"${@:V:1}\"", "5", "e"),
        bash("declare -i", "declare -i n=V; echo $n", "5", "5"),
        bash("local -i", "f() { local -i n=V; echo $n; }; f", "5", "5"),
        bash("typeset -ix", "typeset -ix n=\"V\"; echo $n", "5", "5"),
        bash("test -ge", "test V -ge 5 && echo yes", "5", "yes"),
        bash("[ -eq ]", "[ \"V\" -eq 5 ] && echo yes", "5", "yes"),
        bash("[ \"-eq\" ]", "[ V \"-eq\" 5 ] && echo yes", "5", "yes"),
        bash("case body", "case x in x) (( V == 5 )) && echo yes;; esac", "5", "yes"),
        bash("$( (( )) )", "echo \"$( (( V > 1 )) && echo yes )\"", "5", "yes"),
        bash("`$(( ))`", "echo `echo $(( V ))`", "5", "5"),
        bash("heredoc $(( ))", "cat <<EOF\n$(( V + 1 ))\nEOF", "5", "6"),
        bash("heredoc <<- $(( ))", "cat <<-EOF\n\t$(( V + 1 ))\n\tEOF", "5", "6"),
        bash("after a comment", "# it's (( here )) [[ ]]\n(( V > 3 )) && echo yes", "5", "yes"),
        bash("inside if", "{% if input.v %}echo $(( V ));{% endif %}", "5", "5"),
        sh("sh $(( ))", "echo $(( V + 1 ))", "5", "6"),
        sh("sh [ -eq ]", "[ V -eq 5 ] && echo yes", "5", "yes"),
        sh("sh test -lt", "test 4 -lt \"V\" && echo yes", "5", "yes"));
  }

  /** Places where the value is taken as a variable name (whose subscript bash evaluates). */
  static List<Context> names() {
    return List.of(
        bash("printf -v", "printf -v V %s hi; echo \"$x\"", "x", "hi"),
        bash("read", "read -r V <<< hi; echo \"$x\"", "x", "hi"),
        bash("read -a", "read -r -a V <<< 'hi there'; echo \"${x[1]}\"", "x", "there"),
        bash("read -p", "read -r -p prompt V <<< hi; echo \"$x\"", "x", "hi"),
        bash("[[ -v ]]", "x=1; [[ -v V ]] && echo set", "x", "set"),
        bash("[ -v ]", "x=1; [ -v \"V\" ] && echo set", "x", "set"),
        bash("unset", "x=1; unset V; echo \"${x:-gone}\"", "x", "gone"),
        bash("unset \"a[V]\"", "a=(1 2); unset \"a[V]\"; echo \"${a[*]}\"", "0", "2"),
        bash("declare V=", "declare V=hi; echo \"$x\"", "x", "hi"),
        bash("local V=", "f() { local V=hi; echo \"$x\"; }; f", "x", "hi"),
        bash("mapfile", "mapfile -t V <<< hi; echo \"${x[0]}\"", "x", "hi"),
        bash("last in a case clause", "case a in a) declare V=hi;; esac; echo \"$x\"", "x", "hi"));
  }

  /** Commands that evaluate arithmetic or names through a variable the value went into. */
  static List<Context> indirect() {
    return List.of(
        bash("x=V; $((x))", "x=V; echo $((x))", "5", "5"),
        bash("x=V; [[ $x -gt ]]", "x=V; [[ $x -gt 1 ]] && echo yes", "5", "yes"),
        bash("x=V; [[ x -gt ]]", "x=V; [[ x -gt 1 ]] && echo yes", "5", "yes"),
        bash("x=V; (( x ))", "x=\"V\"; (( x > 1 )) && echo yes", "5", "yes"),
        bash("x=V; let", "x=V; let y=x+1 && echo $y", "5", "6"),
        bash("typeset -i n; n=V", "typeset -i n; n=V; echo $n", "5", "5"),
        bash("${!x}", "y=ok; x=V; echo ${!x}", "y", "ok"),
        bash("${a[x]}", "x=V; a=(p q r s t u); echo ${a[x]}", "5", "u"),
        bash("${s:x}", "x=V; s=abcdefg; echo ${s:x}", "5", "fg"),
        bash("declare -n", "y=ok; declare -n r=V; echo $r", "y", "ok"),
        bash("function $1", "f() { echo $(( $1 * 2 )); }; f V", "5", "10"),
        bash("$( x ) in [[ ]]", "[[ $(echo V) -gt 1 ]] && echo yes", "5", "yes"),
        sh("sh x=V; $((x))", "x=V; echo $((x))", "5", "5"));
  }

  /** Commands whose nested shell script (sh -c, bash -c) evaluates arithmetic on what the value went into. */
  static List<Context> nestedScripts() {
    return List.of(
        bash("N=V bash -c $((N))", "N=V bash -c 'echo $((N))'", "5", "5"),
        bash("export N=V; bash -c", "export N=V; bash -c \"echo \\$((N))\"", "5", "5"),
        bash("bash -c $1 _ V", "bash -c 'echo $(( $1 * 2 ))' _ V", "5", "10"),
        bash("env N=V bash -c [[ ]]", "env N=V bash -c '[[ $N -gt 1 ]] && echo yes'", "5", "yes"),
        bash("bash -c ${a[$1]}", "bash -c 'a=(p q r s t u); echo ${a[$1]}' _ V", "5", "u"),
        sh("sh: N=V bash -c", "N=V bash -c 'echo $((N))'", "5", "5"));
  }

  /** Values that run "touch F" if the shell ever evaluates them as code; @F@ is the marker file. */
  static List<String> hostile() {
    return List.of(
        "a[$(touch @F@)]",
        "x[`touch @F@`]",
        "a[$(touch @F@)]+1",
        " a[$(touch @F@)] ",
        "b[c[$(touch @F@)]]",
        "1 -o x[$(touch @F@)]",
        "x[$((0))$(touch @F@)]",
        "a[${PATH:$(touch @F@)}]",
        "a[$(touch${IFS}@F@)]",
        "a['$(touch @F@)']",
        "a[\"$(touch @F@)\"]",
        "a[\\$(touch @F@)]",
        "a[$(touch @F@)",
        "x]a[$(touch @F@)]",
        "a[$(\ntouch @F@\n)]",
        "a[$(touch @F@)]\r\n",
        "$((a[$(touch @F@)]))",
        "{{ 7*7 }}a[$(touch @F@)]",
        "$LOOP_PREV.x.output a[$(touch @F@)]",
        "a[`touch @F@`]",
        "$(touch @F@)",
        "`touch @F@`",
        "5$(touch @F@)",
        "'; touch @F@; '",
        "\"; touch @F@; \"",
        "$'\\x27'; touch @F@",
        "5\ntouch @F@",
        "${x@P}$(touch @F@)",
        "5 ]] ; touch @F@ ; [[ 1",
        "1 )) ; touch @F@ ; (( 1",
        "-1 )); touch @F@; ((0",
        "x; touch @F@");
  }

  /** Constructs an arithmetic context can sit in; each keeps the context on lines of its own. */
  static List<UnaryOperator<String>> wrappers() {
    return List.of(
        x -> "echo \"$(\n" + x + "\n)\"",
        x -> "{\n" + x + "\n}",
        x -> "(\n" + x + "\n)",
        x -> "if true; then\n" + x + "\nfi",
        x -> "f() {\n" + x + "\n}; f",
        x -> "case a in a)\n" + x + "\n;; esac",
        x -> "while true; do\n" + x + "\nbreak; done",
        x -> "for i in 1; do\n" + x + "\ndone",
        x -> "x=$(\n" + x + "\n); echo \"$x\"",
        x -> "# it's a \"comment\n" + x,
        x -> "cat <<'EOF' >/dev/null\nit's \"$(\nEOF\n" + x,
        x -> "echo 'it'\"'\"'s' >/dev/null; true &&\n" + x,
        x -> "{% if true %}\n" + x + "\n{% endif %}");
  }

  static Stream<Arguments> wrappedCases() {
    List<Arguments> all = new ArrayList<>();
    List<String> values = List.of("a[$(touch @F@)]", "x[`touch @F@`]", "$(touch @F@)", "'; touch @F@; '");
    for (Context c : arithmetic()) {
      for (int w = 0; w < wrappers().size(); w++) {
        for (String h : values) {
          all.add(Arguments.of(c, w, h));
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} in wrapper {1} <- {2}")
  @MethodSource("wrappedCases")
  void arithmeticContextInsideAnyConstructCannotRunCommand_bugBashRecursiveArithmetic(Context c, int wrapper,
      String hostile) {
    Context wrapped = new Context(c.name(), c.field(), wrappers().get(wrapper).apply(c.command()), "", "");
    RunResult r = run(wrapped, arm(hostile));

    assertRefused(r, c.field(), V, Rule.INTEGER);
  }

  static Stream<Arguments> wrappedContexts() {
    List<Arguments> all = new ArrayList<>();
    for (Context c : arithmetic()) {
      for (int w = 0; w < wrappers().size(); w++) {
        all.add(Arguments.of(c, w));
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} in wrapper {1}")
  @MethodSource("wrappedContexts")
  void aNumberStillWorksInsideAnyConstruct(Context c, int wrapper) {
    Context wrapped = new Context(c.name(), c.field(), wrappers().get(wrapper).apply(c.command()), "", "");
    RunResult good = run(wrapped, c.good());

    assertThat(good.status()).as(String.valueOf(good.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(String.valueOf(good.output())).contains(c.printed());
  }

  static Stream<Arguments> arithmeticCases() {
    return cross(arithmetic());
  }

  static Stream<Arguments> nameCases() {
    return cross(names());
  }

  static Stream<Arguments> indirectCases() {
    return cross(indirect());
  }

  private static Stream<Arguments> cross(List<Context> contexts) {
    List<Arguments> all = new ArrayList<>();
    for (Context c : contexts) {
      for (String h : hostile()) {
        all.add(Arguments.of(c, h));
      }
    }
    return all.stream();
  }

  private Path marker() {
    return tmp.resolve("pwned");
  }

  private String arm(String hostile) {
    return hostile.replace("@F@", marker().toString());
  }

  private RunResult run(Context c, String value) {
    Workflow wf = ENGINE.workflow("shell").node("sh", "shell", Map.of(c.field(), c.command())).build();
    return ENGINE.run(wf, RunOptions.builder().input("v", value).workingDirectory(tmp).build());
  }

  private void assertRefused(RunResult r, String field, String source, Rule rule) {
    assertThat(marker()).as("the marker file").doesNotExist();
    assertThat(r.status()).isEqualTo(RunStatus.FAILED);
    assertThat(r.error().code()).isEqualTo("node_failed");
    assertThat(r.error().details()).isEqualTo(Map.of("field", field, "source", source, "rule", rule.code()));
    assertThat(r.error().message()).contains(field + ": the value of " + source + " ").contains(", found '");
    assertThat(r.error().message()).doesNotContain("\n");
    assertThat(r.nodes().get("sh")).as("nothing ran").doesNotContainKey("exitCode");
  }

  @ParameterizedTest(name = "{0} <- {1}")
  @MethodSource("arithmeticCases")
  void arithmeticContextValueCannotRunCommand_bugBashRecursiveArithmetic(Context c, String hostile) {
    RunResult r = run(c, arm(hostile));

    assertRefused(r, c.field(), V, Rule.INTEGER);
    assertThat(r.error().message()).contains("is used in an arithmetic context and must be an integer");
  }

  @ParameterizedTest(name = "{0} <- {1}")
  @MethodSource("nameCases")
  void variableNameValueCannotRunCommand_bugBashRecursiveArithmetic(Context c, String hostile) {
    RunResult r = run(c, arm(hostile));

    assertRefused(r, c.field(), V, Rule.NAME);
    assertThat(r.error().message()).contains("is used as a variable name");
  }

  @ParameterizedTest(name = "{0} <- {1}")
  @MethodSource("indirectCases")
  void valueReachingArithmeticThroughAVariableCannotRunCommand_bugBashRecursiveArithmetic(Context c,
      String hostile) {
    String value = arm(hostile);
    RunResult r = run(c, value);

    assertThat(marker()).as("the marker file").doesNotExist();
    int open = value.indexOf('[');
    if (open >= 0 && (value.indexOf('$', open) > 0 || value.indexOf('`', open) > 0)) {
      assertRefused(r, c.field(), V, Rule.ARITHMETIC_INERT);
    } else {
      // Anything else is an arithmetic error for the shell, never a command: the shell reports it.
      assertThat(r.error() == null ? Map.of() : r.error().details()).doesNotContainKey("rule");
    }
  }

  static Stream<Arguments> nestedScriptCases() {
    return cross(nestedScripts());
  }

  @ParameterizedTest(name = "{0} <- {1}")
  @MethodSource("nestedScriptCases")
  void valueReachingANestedShellScriptCannotRunCommand_bugBashCScriptEvaluatedItsEnvironment(Context c,
      String hostile) {
    valueReachingArithmeticThroughAVariableCannotRunCommand_bugBashRecursiveArithmetic(c, hostile);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nestedScripts")
  void aPlainValueStillWorksInCommandsWithANestedShellScript(Context c) {
    aPlainValueStillWorksInCommandsThatEvaluateArithmetic(c);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("arithmetic")
  void aNumberStillWorksInEveryArithmeticContext(Context c) {
    RunResult r = run(c, c.good());

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo(c.printed());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("names")
  void aNameStillWorksWhereAVariableNameIsExpected(Context c) {
    RunResult r = run(c, c.good());

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo(c.printed());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("indirect")
  void aPlainValueStillWorksInCommandsThatEvaluateArithmetic(Context c) {
    RunResult r = run(c, c.good());

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo(c.printed());
  }

  /** until_bash / until_command tests whose score comes from the pass (a model's reply, here a transform). */
  static Stream<Arguments> untilCases() {
    List<Arguments> all = new ArrayList<>();
    List<String[]> tests = List.of(
        new String[] {"until_bash", "[[ {{ score.output }} -ge 8 ]]", "integer"},
        new String[] {"until_bash", "(( {{ score.output }} >= 8 ))", "integer"},
        new String[] {"until_command", "test {{ score.output }} -ge 8", "integer"},
        new String[] {"until_bash", "s={{ score.output }}; (( s >= 8 ))", "arithmetic_inert"});
    for (String[] t : tests) {
      for (String h : hostile()) {
        all.add(Arguments.of(t[0], t[1], t[2], h));
      }
    }
    return all.stream();
  }

  private RunResult runUntil(String field, String test, String score) {
    Workflow wf = ENGINE.parse("""
        name: until
        nodes:
          - id: g
            loop_group:
              max_iterations: 3
              %s: |-
                %s
              nodes:
                - id: score
                  type: transform
                  template: "{{ input.v }}"
        """.formatted(field, test), "until.yaml");
    return ENGINE.run(wf, RunOptions.builder().input("v", score).workingDirectory(tmp).build());
  }

  @ParameterizedTest(name = "{0}: {1} <- {3}")
  @MethodSource("untilCases")
  void untilCommandValueCannotRunCommand_bugBashRecursiveArithmetic(String field, String test, String rule,
      String hostile) {
    String value = arm(hostile);
    RunResult r = runUntil(field, test, value);

    assertThat(marker()).as("the marker file").doesNotExist();
    int open = value.indexOf('[');
    boolean subscript = open >= 0 && (value.indexOf('$', open) > 0 || value.indexOf('`', open) > 0);
    if (rule.equals("integer") || subscript) {
      // A refused value ends the loop with the refusal, not with "another pass" until the bound.
      assertThat(r.status()).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo("node_failed");
      assertThat(r.error().details()).isEqualTo(Map.of("field", field, "source", "{{ score.output }}", "rule", rule));
      assertThat(r.error().message()).contains(field + ": the value of {{ score.output }} ");
      assertThat(r.nodes().get("g")).containsEntry("count", 1).containsEntry("exit_reason", "error");
    }
  }

  @Test
  void untilCommandStillDecidesByItsExitStatus() {
    RunResult done = runUntil("until_bash", "[[ {{ score.output }} -ge 8 ]]", "9");
    RunResult notYet = runUntil("until_bash", "[[ {{ score.output }} -ge 8 ]]", "5");

    assertThat(done.status()).as(String.valueOf(done.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(done.nodes().get("g")).containsEntry("count", 1).containsEntry("exit_reason", "command");
    assertThat(notYet.error().code()).isEqualTo("max_iterations_exceeded");
    assertThat(notYet.nodes().get("g")).containsEntry("count", 3);
  }

  @ParameterizedTest
  @ValueSource(strings = {"5", " 5", "5 ", "\t5\n", "+5", "005"})
  void anIntegerIsPassedInItsPlainDecimalForm(String value) {
    RunResult r = run(bash("echo", "echo $(( V ))", "", ""), value);

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo("5");
  }

  @Test
  void aLeadingZeroIsDecimalNotOctal() {
    assertThat(run(bash("echo", "echo $(( V ))", "", ""), "010").output()).isEqualTo("10");
    assertThat(run(bash("echo", "echo $(( V ))", "", ""), "-08").output()).isEqualTo("-8");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "5.0", "0x10", "1e3", "5 5", "٥", "9223372036854775808", "--5", "5-", "five"})
  void whatIsNotADecimalIntegerIsRefusedInArithmetic(String value) {
    RunResult r = run(bash("echo", "echo $(( V ))", "", ""), value);

    assertRefused(r, "bash", V, Rule.INTEGER);
  }

  @Test
  void theLargest64BitIntegersPass() {
    assertThat(run(bash("echo", "echo $(( V ))", "", ""), "9223372036854775807").output())
        .isEqualTo("9223372036854775807");
    assertThat(run(bash("echo", "echo $(( V ))", "", ""), "-9223372036854775808").output())
        .isEqualTo("-9223372036854775808");
  }

  @Test
  void theRefusalShowsACutOfTheValueOnOneLine() {
    RunResult r = run(bash("echo", "echo $(( V ))", "", ""), "a[$(touch /tmp/x)]\n" + "y".repeat(100));

    assertThat(r.error().message()).isEqualTo("shell node 'sh' failed: bash: the value of {{ input.v }} is used in "
        + "an arithmetic context and must be an integer, found 'a[$(touch /tmp/x)]\\nyyyyyyyyyyyyyyyyyyyyy…'");
  }

  @Test
  void aValueInABranchThatIsNotTakenIsNotChecked() {
    Context c = bash("if", "{% if input.go %}echo $(( V )){% else %}echo skipped{% endif %}", "", "");
    Workflow wf = ENGINE.workflow("shell").node("sh", "shell", Map.of(c.field(), c.command())).build();

    RunResult r = ENGINE.run(wf, RunOptions.builder().input("v", "a[$(touch x)]").input("go", false)
        .workingDirectory(tmp).build());

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo("skipped");
  }

  @Test
  void associativeArrayKeysAreTextNotArithmetic() {
    String value = "key with $(touch " + marker() + ") and a[1]";
    RunResult r = run(bash("assoc", "declare -A m; m[V]=found; echo \"${m[V]}\"", "", ""), value);

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.output()).isEqualTo("found");
    assertThat(marker()).doesNotExist();
  }

  @ParameterizedTest
  @ValueSource(strings = {"a[$(touch @F@)]", "x[`touch @F@`]"})
  void envValuesOfACommandThatEvaluatesArithmeticAreChecked_bugBashRecursiveArithmetic(String hostile) {
    Workflow wf = ENGINE.workflow("shell").node("sh", "shell", Map.of("bash", "echo $(( N + 1 ))",
        "env", Map.of("N", V))).build();

    RunResult bad = ENGINE.run(wf, RunOptions.builder().input("v", arm(hostile)).workingDirectory(tmp).build());
    RunResult good = ENGINE.run(wf, RunOptions.builder().input("v", "5").workingDirectory(tmp).build());

    assertRefused(bad, "bash", "env.N", Rule.ARITHMETIC_INERT);
    assertThat(good.output()).isEqualTo("6");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a[$(touch @F@)]", "x[`touch @F@`]", "$(touch @F@)", "5; touch @F@", "5\ntouch @F@"})
  void aValueCheckedWithARegexBeforeAScriptUsesItIsSafe(String hostile) throws Exception {
    java.nio.file.Files.writeString(tmp.resolve("double.sh"), "echo $(( $1 * 2 ))\n");
    Context c = bash("documented pattern", "[[ V =~ ^[0-9]+$ ]] || exit 3; bash double.sh V", "5", "10");

    RunResult bad = run(c, arm(hostile));
    RunResult good = run(c, "5");

    assertThat(marker()).doesNotExist();
    assertThat(bad.nodes().get("sh")).containsEntry("exitCode", 3);
    assertThat(good.output()).isEqualTo("10");
  }

  @Test
  void envValuesOfACommandWithoutArithmeticAreData() {
    Workflow wf = ENGINE.workflow("shell").node("sh", "shell", Map.of("bash", "printf %s \"$N\"",
        "env", Map.of("N", V))).build();
    String value = "a[$(touch " + marker() + ")]";

    RunResult r = ENGINE.run(wf, RunOptions.builder().input("v", value).workingDirectory(tmp).build());

    assertThat(r.output()).isEqualTo(value);
    assertThat(marker()).doesNotExist();
  }
}
