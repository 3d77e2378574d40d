package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Shell forms in which bash runs code that the command does not show: special variables that evaluate or run
 * what is assigned to them, programs that run an argument or their input as code, wrappers that run their
 * arguments as a command line, indirection through variables. A value (an input, or a model's reply reaching
 * until_bash) placed in any of them must be refused when the workflow loads, with the file, line and column, or
 * stay inert: each form that loads is run through real bash, and the marker file the value tries to create must
 * never appear.
 */
class ShellDenyListCorpusTest {
  private static final Loopflow ENGINE = Loopflow.create();

  @TempDir
  Path tmp;

  /** The forms; V stands for the value. */
  static List<String> forms() {
    return List.of(
        // variables with special semantics
        "RANDOM=V; echo ok", "RANDOM=\"V\"", "SRANDOM=\"V\"", "HISTCMD=\"V\"", "OPTIND=\"V\"", "LINENO=\"V\"",
        "SECONDS=V", "export RANDOM=\"V\"", "declare RANDOM=\"V\"", "readonly OPTIND=\"V\"",
        "f() { local OPTIND=\"V\"; }; f", "typeset -x SRANDOM=\"V\"", "export \"RANDOM=V\"",
        "PS4=\"V\"; set -x; true", "PS4='V'; set -x; true", "PS1=\"V\"", "PROMPT_COMMAND=\"V\"",
        "BASH_ENV=\"V\" bash -c true", "ENV=\"V\" sh -i </dev/null", "IFS=\"V\"", "PATH=\"V\"; ls",
        "env PS4=\"V\" bash -xc true", "LD_PRELOAD=\"V\" true", "GIT_SSH_COMMAND=\"V\" git --version",
        "printf -vV %s x", "printf -v\"V\" %s x", "printf -v V %s x; echo ok", "printf -v PS4 %s \"V\"; set -x; true",
        "read -r PS4 <<< \"V\"; set -x; true", "mapfile -t PS4 <<< \"V\"; set -x; true",
        "for PS4 in \"V\"; do set -x; true; done", "x=PS4; printf -v \"$x\" %s \"V\"; set -x; true",
        "n=RANDOM; declare \"$n=V\"", "read -r \"V\" <<< 1", "declare -n r=\"V\"; echo \"$r\"",
        // programs that evaluate an argument or their input as code
        "compgen -W \"V\" x", "compgen -W \"$(echo \"V\")\" x", "x=\"V\"; compgen -W \"$x\" x", "trap \"V\" EXIT",
        "bash <<EOF\nV\nEOF", "bash <<EOF\necho \"V\"\nEOF", "sh <<-EOF\n\techo V\n\tEOF", "bash <<< \"V\"",
        "echo \"V\" | bash", "printf '%s\\n' \"V\" | sh -s", "cat <<EOF | bash\nV\nEOF",
        "python3 - <<EOF\nprint(\"V\")\nEOF", "bash -s <<< \"V\"", "eval \"V\"", "x=\"V\"; eval \"$x\"",
        "x=\"V\"; eval $x", "x=\"V\"; source <(echo \"$x\")", ". /dev/stdin <<< \"V\"",
        "source /dev/stdin <<EOF\nV\nEOF", "x=\"V\"; sh -c \"$x\"", "x=\"V\"; bash -c \"echo $x\"",
        "bash -c 'eval \"$1\"' _ \"V\"", "sh -c '$1' _ \"V\"", "bash -c 'bash <<< \"$1\"' _ \"V\"",
        "x=\"V\"; echo \"${x@P}\"", "x=\"V\"; bash -c 'echo \"${1@P}\"' _ \"$x\"",
        "coproc bash -c \"V\"", "coproc { echo \"V\" | bash; }", "bash --rcfile <(echo \"V\") -i </dev/null",
        "BASH_ENV=<(echo \"V\") bash -c true", "bash --init-file <(echo \"V\") -i </dev/null",
        "python3 \"V\"", "python3 -c 'import sys' \"V\"; echo ok", "perl -e 'print 1' \"V\"", "awk \"V\" </dev/null",
        "echo x | sed \"s/x/V/e\"", "bash \"V\"", "mapfile -C \"V\" -c 1 x <<< a",
        // wrappers that run their argument as a command line
        "su root -c \"V\"", "su -c \"V\" root", "runuser -u root -- bash -c \"V\"", "runuser root -c \"V\"",
        "env -S \"V\"", "env -S\"V\"", "env --split-string=\"V\"", "env X=1 sh -c \"V\"",
        "flock /tmp/loopflow-corpus.lock bash -c \"V\"", "flock /tmp/loopflow-corpus.lock -c \"V\"",
        "find . -maxdepth 0 -exec sh -c \"V\" \\;", "find . -maxdepth 0 -execdir bash -c 'eval \"$1\"' _ \"V\" \\;",
        "chroot / bash -c \"V\"", "chroot / sh -c 'eval \"$1\"' _ \"V\"", "script -qc \"V\" /dev/null",
        "git -c alias.x=\"!V\" x", "git -c \"alias.x=!sh -c 'V'\" x", "git -c core.pager=\"V\" log -1", "echo x | sed 's/x/y/' \"V\"", "git grep x \"V\"",
        "git log \"V\" -1",
        "timeout 5 bash -c \"V\"", "nice -n 1 bash -c \"V\"", "nohup sh -c \"V\" >/dev/null",
        "setsid -w sh -c \"V\"", "stdbuf -o0 sh -c \"V\"", "sudo -n sh -c \"V\"", "sudo -n -s \"V\"",
        "command eval \"V\"", "builtin eval \"V\"", "exec sh -c \"V\"", "time bash -c \"V\"",
        "echo \"V\" | xargs -I{} sh -c '{}'", "echo \"V\" | xargs sh -c", "echo \"V\" | xargs -0 bash -c",
        "watch -n1 -e \"V\"", "ssh localhost \"V\"", "make -f /dev/null X=\"V\"", "sqlite3 :memory: \"V\"",
        "busybox sh -c \"V\"", "unshare -r bash -c \"V\"", "taskset 1 bash -c \"V\"",
        // indirection through variables
        "x=eval; $x \"V\"", "x=eval; \"$x\" \"V\"", "$BASH -c \"V\"", "\"$BASH\" -c 'eval \"$1\"' _ \"V\"",
        "${SHELL:-sh} -c 'eval \"$1\"' _ \"V\"", "$(echo eval) \"V\"", "`echo eval` \"V\"", "x=\"V\"; $x",
        "x=\"V\"; ${x}", "f=V; $f", "\"V\"", "V", "x=\"V\"; echo \"${!x}\"", "x=\"V\"; y=x; echo \"${!y}\"",
        "x=\"V\"; declare -n r=x; echo \"$r\"",
        // plain data: allowed, and still inert
        "echo \"V\"", "echo V", "printf '%s\\n' \"V\"", "grep -F -- \"V\" /dev/null; true", "x=\"V\"; echo \"$x\"",
        "bash -c 'printf \"%s\\n\" \"$1\"' _ \"V\"", "cat <<EOF\nV\nEOF", "python3 -c 'import sys; print(sys.argv[1])' \"V\"");
  }

  /** Forms where the value is provably data: they load, run, and print the value as it is. */
  static Stream<Arguments> dataForms() {
    List<Arguments> all = new ArrayList<>();
    for (String form : List.of("echo \"V\"", "printf '%s\\n' \"V\"", "x=\"V\"; echo \"$x\"", "cat <<EOF\nV\nEOF",
        "bash -c 'printf \"%s\\n\" \"$1\"' _ \"V\"", "grep -F -- \"V\" <<< \"V\"",
        "python3 -c 'import sys; print(sys.argv[1])' \"V\"", "name=\"V\"; env name=\"$name\" printenv name",
        "timeout 5 printf '%s\\n' \"V\"", "f() { local v=\"V\"; echo \"$v\"; }; f")) {
      for (String v : List.of("$(touch M)", "`touch M`", "a;touch M", "a[$(touch M)]", "plain words")) {
        all.add(Arguments.of(form, v));
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} <- {1}")
  @MethodSource("dataForms")
  void aValueThatIsProvablyDataStillArrivesAsItIs(String form, String value) {
    Path marker = tmp.resolve("M");
    String yaml = """
        name: data
        nodes:
          - id: sh
            type: shell
            bash: |-
        %s
        """.formatted(indent(form.replace("V", "{{ input.v }}"), 6));
    RunResult r = ENGINE.run(ENGINE.parse(yaml, "t.yaml"), RunOptions.builder().input("v", value)
        .workingDirectory(tmp).build());

    assertThat(r.error()).isNull();
    assertThat(r.output()).isEqualTo(value);
    assertThat(Files.exists(marker)).isFalse();
  }

  /** Values that try to create the marker file wherever they end up as code. */
  static List<String> values(Path marker) {
    String m = marker.toString();
    return List.of("$(touch " + m + ")", "`touch " + m + "`", "a;touch " + m, "a[$(touch " + m + ")]",
        "touch " + m, "x[`touch " + m + "`]", "-c touch " + m, "!touch " + m, "--expression=e touch " + m,
        "-Otouch " + m);
  }

  static Stream<Arguments> cases() {
    List<Arguments> all = new ArrayList<>();
    List<String> forms = forms();
    for (int f = 0; f < forms.size(); f++) {
      for (int v = 0; v < 10; v++) {
        all.add(Arguments.of(forms.get(f), v));
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} <- value {1}")
  @MethodSource("cases")
  void anInputValueNeverRunsInAnyForm_bugValueRanInContextsTheLoaderDidNotKnow(String form, int value)
      throws Exception {
    Path marker = tmp.resolve("MARKER");
    String command = form.replace("V", "{{ input.v }}");
    String yaml = """
        name: corpus
        defaults: {timeout: 20s}
        nodes:
          - id: sh
            type: shell
            bash: |-
        %s
        """.formatted(indent(command, 6));
    judge(yaml, values(marker).get(value), marker);
  }

  @ParameterizedTest(name = "{0} <- reply {1}")
  @MethodSource("cases")
  void aModelReplyNeverRunsInUntilBash_bugReplyRanThroughLoopPrev(String form, int value) throws Exception {
    Path marker = tmp.resolve("MARKER");
    String command = form.replace("V", "$LOOP_PREV.reply.output");
    String yaml = """
        name: corpus
        defaults: {timeout: 20s}
        nodes:
          - id: g
            loop_group:
              max_iterations: 1
              until_bash: |-
        %s
              nodes:
                - id: reply
                  type: transform
                  template: "{{ input.v }}"
        """.formatted(indent(command, 8));
    judge(yaml, values(marker).get(value), marker);
  }

  private void judge(String yaml, String value, Path marker) throws Exception {
    Workflow wf;
    try {
      wf = ENGINE.parse(yaml, "t.yaml");
    } catch (WorkflowInvalidException e) {
      assertThat(e.problems()).isNotEmpty();
      for (Problem p : e.problems()) {
        assertThat(p.format()).as("refused with its place").matches("t\\.yaml:[0-9]+:[0-9]+: .*")
            .doesNotContain("\n");
      }
      return;
    }
    RunResult r = ENGINE.run(wf, RunOptions.builder().input("v", value).workingDirectory(tmp).build());
    assertThat(Files.exists(marker)).as("the value ran as code (run ended " + r.status() + ", " + r.error() + ")")
        .isFalse();
  }

  private static String indent(String text, int spaces) {
    String pad = " ".repeat(spaces);
    return pad + text.replace("\n", "\n" + pad);
  }
}
