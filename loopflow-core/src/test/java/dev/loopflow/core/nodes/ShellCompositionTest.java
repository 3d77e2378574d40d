package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Commands composed at random (a fixed seed, so every run checks the same ones) from places where bash evaluates
 * a value as arithmetic or as a variable name, nested in quotes, substitutions, groups, functions, conditionals,
 * heredocs and comments. Whatever the composition, a value built to run a command never does.
 */
class ShellCompositionTest {
  private static final Loopflow ENGINE = Loopflow.create();

  @TempDir
  Path tmp;

  private static final List<String> EVALUATING = List.of(
      "(( X > 1 ))", "echo $(( X ))", "echo $[ X ]", "[[ X -gt 1 ]]", "[[ 1 -lt X ]]", "let y=X", "let \"y = X\"",
      "a=(1 2); echo ${a[X]}", "a[X]=1", "s=abc; echo ${s:X}", "s=abc; echo ${s:0:X}", "declare -i n=X",
      "local -i n=X 2>/dev/null", "printf -v X 1", "read X <<< 1", "[[ -v X ]]", "unset X", "x=X; (( x ))",
      "x=X; echo $((x))", "x=X; [[ $x -eq 1 ]]", "[ X -eq 1 ]", "test X -gt 0", "a=([X]=1)", "declare X=1",
      "for (( i = 0; i < X; i++ )); do :; done", "mapfile -t X < /dev/null", "y=X; echo ${!y}",
      "declare -n r=X; echo $r", "typeset -i t; t=X", "f() { (( $1 )); }; f X");

  private static final List<UnaryOperator<String>> VALUE_FORMS = List.of(
      x -> "{{ input.v }}", x -> "\"{{ input.v }}\"", x -> "'{{ input.v }}'", x -> "\"${nope:-{{ input.v }}}\"");

  /**
   * Constructs around a command; each ends the command with a newline, so a heredoc in it can end, and each
   * heredoc is named after the length of what it wraps, so nested ones differ.
   */
  private static final List<UnaryOperator<String>> WRAPPERS = List.of(
      c -> "echo \"$( " + c + "\n)\"", c -> "echo `" + backquoted(c, false) + "\n`", c -> "{ " + c + "\n}",
      c -> "( " + c + "\n)", c -> "f() { " + c + "\n}; f", c -> "if true; then " + c + "\nfi",
      c -> "case a in a) " + c + "\n;; esac", c -> "true &&\n" + c, c -> "if ! false; then\n" + c + "\nfi",
      c -> "time\n" + c, c -> "cat <<E" + c.length() + "\n$( " + c + "\n)\nE" + c.length(), c -> "# it's \"odd\n" + c, c -> ": 'x' ; " + c,
      c -> "x=\"${y:-$( " + c + "\n)}\"", c -> "for i in 1; do " + c + "\ndone", c -> "while false; do :; done; " + c,
      c -> "cat <<'Q" + c.length() + "' >/dev/null\n$( ' \"\nQ" + c.length() + "\n" + c, c -> "{% if true %}" + c + "\n{% endif %}",
      c -> "echo $'it\\'s' >/dev/null; " + c, c -> "x=( \"a b\" ); " + c, c -> "[[ a == a ]] &&\n" + c,
      c -> "echo \"${x:-'it'}\" >/dev/null; " + c, c -> "echo $(( 1 + $( { " + c + "\n} >/dev/null; echo 1 ) ))",
      c -> "echo \"`" + backquoted(c, true) + "\n`\"", c -> "echo `echo \\$( " + backquoted(c, false) + "\n)`",
      c -> "x=$(cat <<X" + c.length() + "\n$( " + c + "\n)\nX" + c.length() + "\n)", c -> "{% if false %}'{% else %}" + c + "\n{% endif %}");

  /** The command written inside backquotes: \\, \` and \$ (and \" inside double quotes) escaped. */
  private static String backquoted(String c, boolean inDoubleQuotes) {
    StringBuilder b = new StringBuilder();
    for (char ch : c.toCharArray()) {
      if (ch == '\\' || ch == '`' || ch == '$' || inDoubleQuotes && ch == '"') {
        b.append('\\');
      }
      b.append(ch);
    }
    return b.toString();
  }

  static Stream<String> commands() {
    // A longer or different exploration: -Dshell.compositions=5000 -Dshell.seed=7
    Random random = new Random(Long.getLong("shell.seed", 20260101L));
    List<String> all = new ArrayList<>();
    for (int n = 0; n < Integer.getInteger("shell.compositions", 400); n++) {
      String value = VALUE_FORMS.get(random.nextInt(VALUE_FORMS.size())).apply("");
      String c = EVALUATING.get(random.nextInt(EVALUATING.size())).replace("X", value);
      int depth = 1 + random.nextInt(3);
      for (int d = 0; d < depth; d++) {
        c = WRAPPERS.get(random.nextInt(WRAPPERS.size())).apply(c);
      }
      all.add(c);
    }
    return all.stream();
  }

  static Stream<String> textCommands() {
    Random random = new Random(Long.getLong("shell.seed", 20260101L) + 1);
    List<String> all = new ArrayList<>();
    for (int n = 0; n < Integer.getInteger("shell.compositions", 400) / 2; n++) {
      String c = "printf '%s' " + VALUE_FORMS.get(random.nextInt(3)).apply("") + " > out.txt";
      int depth = 1 + random.nextInt(3);
      for (int d = 0; d < depth; d++) {
        c = WRAPPERS.get(random.nextInt(WRAPPERS.size())).apply(c);
      }
      all.add(c);
    }
    return all.stream();
  }

  @ParameterizedTest
  @MethodSource("textCommands")
  void composedCommandPassesTextExactly(String command) throws Exception {
    // No '[' before a '$': some compositions evaluate arithmetic, where such a value is refused.
    String value = "a  b * $(touch " + tmp.resolve("pwned") + ") `x` \" ' \\ -n\nEOF\n [z]";
    Workflow wf = ENGINE.workflow("w").node("sh", "shell", Map.of("bash", command, "timeout", "10s")).build();

    RunResult r = ENGINE.run(wf, RunOptions.builder().input("v", value).workingDirectory(tmp).build());

    assertThat(r.error()).isNull();
    assertThat(java.nio.file.Files.readString(tmp.resolve("out.txt"))).isEqualTo(value);
    assertThat(tmp.resolve("pwned")).doesNotExist();
  }

  @ParameterizedTest
  @MethodSource("commands")
  void composedCommandNeverRunsAValue_bugBashRecursiveArithmetic(String command) {
    Path marker = tmp.resolve("pwned");
    Workflow wf;
    try {
      wf = ENGINE.workflow("w").node("sh", "shell", Map.of("bash", command, "timeout", "10s")).build();
    } catch (dev.loopflow.core.error.WorkflowInvalidException refused) {
      // A computed variable name (printf -v "${nope:-VALUE}") is refused when the workflow loads.
      assertThat(refused.problems()).isNotEmpty();
      return;
    }
    for (String v : List.of("a[$(touch " + marker + ")]", "x[`touch " + marker + "`]", "b[c[$(touch " + marker + ")]]")) {
      RunResult r = ENGINE.run(wf, RunOptions.builder().input("v", v).workingDirectory(tmp).build());

      assertThat(marker).as("marker after %s: %s", v, r.error()).doesNotExist();
    }
  }
}
