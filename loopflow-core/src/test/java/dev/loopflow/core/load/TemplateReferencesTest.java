package dev.loopflow.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A template or condition that reads something that cannot exist is a load error at its file:line:col, with a
 * "did you mean"; everything that can exist loads. Each case puts one template into a workflow that has a node
 * of every kind, a loop edge, a loop body and declared inputs.
 */
class TemplateReferencesTest {
  /** A node kind from outside the engine that declares no result fields: references to it are not checked. */
  private static final NodeHandler PLUGIN = new NodeHandler() {
    @Override
    public NodeKindSpec spec() {
      return NodeKindSpec.of("plugin", null, List.of());
    }

    @Override
    public NodeProgram compile(NodeConfig config) {
      return NodeProgram.inline(ctx -> NodeOutcome.of("p"));
    }
  };

  private static final Loopflow ENGINE = Loopflow.builder().handler(PLUGIN).build();

  /** PROBE is replaced by the template under test (a YAML double-quoted string), BODYPROBE likewise in a body. */
  private static final String WORKFLOW = """
      name: refs
      input:
        topic: string
        n: {type: integer, default: 1}
      nodes:
        - id: sh
          bash: echo hi
        - id: tr
          type: transform
          template: x
        - id: sc
          run: "return {a = 1}"
        - id: val
          type: validator
          schema: {type: object}
          value: "{}"
        - id: rt
          type: router
          routes: {left: "value == 'l'", right: default}
          value: "{{ tr.output }}"
        - id: ap
          approval: ok?
        - id: plug
          type: plugin
        - id: wl
          type: while_loop
          condition: "false"
          max_iterations: 2
          body:
            - id: inner
              bash: echo in
            - id: bodyprobe
              type: transform
              template: "BODYPROBE"
        - id: a
          type: transform
          template: a
        - id: b
          type: transform
          template: b
        - id: probe
          type: transform
          template: "PROBE"
      edges:
        - {from: a, to: b}
        - {from: b, to: a, type: loop, maxIterations: 2, when: "false"}
      """;

  private static String workflow(String probe, String bodyProbe) {
    // BODYPROBE first: it contains PROBE.
    return WORKFLOW.replace("BODYPROBE", bodyProbe.replace("\\", "\\\\").replace("\"", "\\\""))
        .replace("PROBE", probe.replace("\\", "\\\\").replace("\"", "\\\""));
  }

  private static List<Problem> problems(String yaml) {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class,
        () -> ENGINE.parse(yaml, "refs.yaml"));
    return e == null ? List.of() : e.problems();
  }

  static Stream<Arguments> typos() {
    return Stream.of(
        // node result fields, through every expression form
        Arguments.of("{{ sh.outptu }}", "sh.outptu", "unknown field 'outptu' of node 'sh' (did you mean 'output'?); "
            + "a shell node's result has error, exitCode, output, sandbox, status, stderr, stderrBytes, stdout, stdoutBytes"),
        Arguments.of("{{ sh.stdot | trim }}", "sh.stdot", "unknown field 'stdot' of node 'sh' (did you mean 'stdout'?)"),
        Arguments.of("{{ sh['exitcode'] }}", "sh['exitcode']", "unknown field 'exitcode' of node 'sh' (did you mean "
            + "'exitCode'?)"),
        Arguments.of("{{ sh.outptu | default('x') }}", "sh.outptu", "unknown field 'outptu' of node 'sh'"),
        Arguments.of("{{ 'a' ~ sh.outptu }}", "sh.outptu", "unknown field 'outptu' of node 'sh'"),
        Arguments.of("{{ [sh.outptu] | join(',') }}", "sh.outptu", "unknown field 'outptu'"),
        Arguments.of("{{ sh.outptu if true else '' }}", "sh.outptu", "unknown field 'outptu'"),
        Arguments.of("{{ input.topic | default(sh.outptu) }}", "sh.outptu", "unknown field 'outptu'"),
        Arguments.of("{{ input.topic | replace('a', sh.outptu) }}", "sh.outptu", "unknown field 'outptu'"),
        Arguments.of("{% set v = sh.outptu %}{{ v }}", "sh.outptu", "unknown field 'outptu'"),
        Arguments.of("{% if sh.exitcode == 0 %}ok{% endif %}", "sh.exitcode", "unknown field 'exitcode'"),
        Arguments.of("{% for l in sh.stdot.split(',') %}{{ l }}{% endfor %}", "sh.stdot", "unknown field 'stdot'"),
        Arguments.of("{% macro m(p) %}{{ p }}{{ sh.outptu }}{% endmacro %}{{ m(1) }}", "sh.outptu",
            "unknown field 'outptu'"),
        Arguments.of("x {{ sh.output }} {{ sh.outptu }} {{ sh.outptu }}", "sh.outptu", "unknown field 'outptu'"),
        Arguments.of("{{ tr.text }}", "tr.text", "unknown field 'text' of node 'tr'; a transform node's result has "
            + "error, output, status"),
        Arguments.of("{{ sc.passed }}", "sc.passed", "unknown field 'passed' of node 'sc'"),
        Arguments.of("{{ val.vaild }}", "val.vaild", "unknown field 'vaild' of node 'val' (did you mean 'valid'?)"),
        Arguments.of("{{ rt.selected_branch }}", "rt.selected_branch", "unknown field 'selected_branch' of node 'rt'"),
        Arguments.of("{{ ap.decison }}", "ap.decison", "unknown field 'decison' of node 'ap' (did you mean "
            + "'decision'?)"),
        Arguments.of("{{ wl.cout }}", "wl.cout", "unknown field 'cout' of node 'wl' (did you mean 'count'?)"),
        // a loop edge's summary lives on its source node only
        Arguments.of("{{ b.loop.cuont }}", "b.loop.cuont", "unknown field 'cuont' (did you mean 'count'?); the loop "
            + "summary of 'b' has count, edge, exit_reason, iterations, max_iterations, output, usage"),
        Arguments.of("{{ a.loop.count }}", "a.loop", "unknown field 'loop' of node 'a'; only the source node of a "
            + "loop edge (type: loop) has 'loop'"),
        // inputs, when the workflow declares them
        Arguments.of("{{ input.typo }}", "input.typo", "unknown input 'typo'; the workflow declares n, topic"),
        Arguments.of("{{ input.topik }}", "input.topik", "unknown input 'topik' (did you mean 'topic'?)"),
        Arguments.of("{{ input['topik'] }}", "input['topik']", "unknown input 'topik' (did you mean 'topic'?)"),
        Arguments.of("{{ flow.input.topik }}", "flow.input.topik", "unknown input 'topik' (did you mean 'topic'?)"),
        Arguments.of("{{ flow.nme }}", "flow.nme", "unknown field 'nme' (did you mean 'name'?); 'flow' has input, name"),
        // unknown roots
        Arguments.of("{{ nosuch.output }}", "nosuch", "unknown reference 'nosuch': no node or variable has that name"),
        Arguments.of("{{ shh.output }}", "shh", "unknown reference 'shh': no node or variable has that name (did you "
            + "mean 'sh'?)"),
        Arguments.of("{{ inner.output }}", "inner", "unknown reference 'inner'"),
        Arguments.of("{{ item }}", "item", "unknown reference 'item': no node or variable has that name (in an "
            + "iterator's body the current item is loop.item)"),
        Arguments.of("{{ previous }}", "previous", "(previous is a pipeline placeholder"),
        Arguments.of("{{ value }}", "value", "unknown reference 'value'"),
        // scope variables
        Arguments.of("{{ run.idd }}", "run.idd", "unknown field 'idd' (did you mean 'id'?); 'run' has file, id, "
            + "started_at, workflow"),
        Arguments.of("{{ loop.iteratoin }}", "loop.iteratoin", "unknown field 'iteratoin' (did you mean "
            + "'iteration'?); 'loop' has"),
        Arguments.of("{{ loop.parent.iteratoin }}", "loop.parent.iteratoin", "unknown field 'iteratoin' (did you "
            + "mean 'iteration'?)"),
        Arguments.of("{% for x in [1, 2] %}{{ loop.iteration }}{% endfor %}", "loop.iteration", "unknown field "
            + "'iteration'; inside {% for %}, 'loop' is the for-loop's own variable"),
        Arguments.of("{{ env.OPENAI_API_KEY }}", "env.OPENAI_API_KEY", "env.OPENAI_API_KEY: environment variables "
            + "whose name says they hold a credential are not readable in templates"),
        Arguments.of("{{ env.GITHUB_TOKEN | default('') }}", "env.GITHUB_TOKEN", "env.GITHUB_TOKEN: environment"),
        Arguments.of("{{ env['DB_PASSWORD'] }}", "env['DB_PASSWORD']", "env.DB_PASSWORD: environment"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("typos")
  void readingWhatCannotExistIsALoadErrorAtItsColumn_bugTyposRenderEmpty(String template, String at,
      String message) {
    String yaml = workflow(template, "x");
    List<Problem> ps = problems(yaml);

    assertThat(ps).as(template).hasSize(1);
    Problem p = ps.get(0);
    assertThat(p.message()).as(template).contains(message);
    assertThat(p.path()).isEqualTo("nodes.probe.template");
    String written = "template: \"" + template.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    String line = yaml.lines().filter(l -> l.strip().equals(written)).findFirst().orElseThrow();
    int lineNo = yaml.lines().toList().indexOf(line) + 1;
    assertThat(p.location().line()).as(template).isEqualTo(lineNo);
    assertThat(p.location().column()).as(template).isEqualTo(line.indexOf(at) + 1);
  }

  static Stream<Arguments> bodyTypos() {
    return Stream.of(
        Arguments.of("{{ inner.outptu }}", "unknown field 'outptu' of node 'inner' (did you mean 'output'?)"),
        Arguments.of("{{ loop.iteratoin }}", "unknown field 'iteratoin' (did you mean 'iteration'?)"),
        Arguments.of("{{ sh.outptu }}", "unknown field 'outptu' of node 'sh'"),
        Arguments.of("{{ innr.output }}", "unknown reference 'innr': no node or variable has that name (did you "
            + "mean 'inner'?)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bodyTypos")
  void loopBodyTemplatesAreCheckedAgainstTheBodyAndTheLevelsAround(String template, String message) {
    List<Problem> ps = problems(workflow("x", template));

    assertThat(ps).extracting(Problem::path).containsExactly("nodes.wl.body.bodyprobe.template");
    assertThat(ps.get(0).message()).contains(message);
  }

  static Stream<String> valid() {
    return Stream.of(
        "{{ sh.output }}{{ sh.stdout }}{{ sh.stderr }}{{ sh.exitCode }}{{ sh.status }}{{ sh.error.message }}",
        "{{ sh.output.anything.deep }}",
        "{{ sc.output.a }}{{ sc.stdout }}",
        "{{ tr.output }}",
        "{{ val.valid }} {{ val.errors | length }} {{ val.value }}",
        "{{ rt.selectedBranch }} {{ rt.value.x }} {{ rt.reason }}",
        "{{ ap.decision }} {{ ap.approved }} {{ ap.comment }} {{ ap.timed_out }}",
        "{{ wl.count }} {{ wl.iterations | length }} {{ wl.exit_reason }} {{ wl.output }}",
        "{{ b.loop.count }} {{ b.loop.exit_reason }} {{ b.loop.iterations }} {{ b.loop.edge }} {{ b.loop }}",
        "{{ b.output }} {{ a.output }}",
        "{{ plug.anything }} {{ plug.output }}",
        "{{ input.topic }} {{ input.n }} {{ input }} {{ flow.input.topic }} {{ flow.name }} {{ flow.input }}",
        "{{ state.anything.deep }} {{ state }}",
        "{{ env.HOME }} {{ env.PATH }} {{ env.NO_SUCH_VARIABLE }}",
        "{{ run.id }} {{ run.workflow }} {{ run.file }} {{ run.started_at }}",
        "{{ loop.iteration }} {{ loop.prev.inner.output }} {{ loop.parent.parent.max }} {{ loop.item }}",
        "{% for x in [1, 2] %}{{ loop.index }}{{ loop.first }}{{ loop.length }}{{ x }}{% endfor %}",
        "{% for k, v in sh.items() %}{{ k }}={{ v }}{% endfor %}",
        "{% set v = sh.output %}{{ v.whatever }}",
        "{% set p, q = 1, 2 %}{{ p }}{{ q }}",
        "{% macro m(p, q=1) %}{{ p.x }}{{ q }}{{ caller() }}{% endmacro %}{{ m(sh) }}",
        "{{ sh.get('stdout') }} {{ sh.keys() | list }}",
        "{{ sh['stdout'] }} {{ sh[\"stderr\"] }}",
        "{{ range(3) | list }}",
        "{{ sh.output is defined }} {{ sh.output is not none }}",
        "{{ 'sh.outptu nosuch.output' }}",
        "{# sh.outptu nosuch #}{{ sh.output }}",
        "{% raw %}{{ sh.outptu }}{{ nosuch }}{% endraw %}",
        "{{ input.topic ~ sh.output }}",
        "{{ {'k': sh.output} }}",
        "{{ sh.output | default('z') }}",
        "{{ sh.output | map(attribute='x') | list }}");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valid")
  void everythingThatCanExistLoads(String template) {
    assertThat(problems(workflow(template, "{{ inner.stdout }}{{ loop.iteration }}{{ sh.output }}"))).isEmpty();
  }

  @Test
  void conditionsAreCheckedLikeTemplates_bugTypoInWhenIsAlwaysFalse() {
    String yaml = """
        name: conds
        input:
          topic: string
        nodes:
          - id: sh
            bash: echo hi
            when: "input.topik"
          - id: rt
            type: router
            routes:
              x: "sh.exitcod == 0"
              y: {equals: {var: sh.stdot, value: "hi"}}
              z: default
          - id: wl
            type: while_loop
            condition: {not: {exists: {var: loop.iteratoin}}}
            max_iterations: 2
            body:
              - {id: inner, bash: echo in}
        edges:
          - {from: sh, to: rt, when: "sh.outptu"}
        """;
    assertThat(problems(yaml)).extracting(Problem::format).containsExactly(
        "refs.yaml:7:12: nodes.sh.when: unknown input 'topik' (did you mean 'topic'?); the workflow declares topic",
        "refs.yaml:11:11: nodes.rt.routes.x: unknown field 'exitcod' of node 'sh' (did you mean 'exitCode'?); "
            + "a shell node's result has error, exitCode, output, sandbox, status, stderr, stderrBytes, stdout, stdoutBytes",
        "refs.yaml:12:25: nodes.rt.routes.y: unknown field 'stdot' of node 'sh' (did you mean 'stdout'?); "
            + "a shell node's result has error, exitCode, output, sandbox, status, stderr, stderrBytes, stdout, stdoutBytes",
        "refs.yaml:16:37: nodes.wl.condition: unknown field 'iteratoin' (did you mean 'iteration'?); 'loop' has "
            + "id, index, input, item, iteration, max, parent, prev, restart, user_input, user_values",
        "refs.yaml:21:31: edges[0].when: unknown field 'outptu' of node 'sh' (did you mean 'output'?); "
            + "a shell node's result has error, exitCode, output, sandbox, status, stderr, stderrBytes, stdout, stdoutBytes");
  }

  @Test
  void garbledTemplatesAreLoadErrorsNeverCrashes() {
    List<String> pieces = List.of("{{", "}}", "{%", "%}", "{#", "#}", "for", "endfor", "in", "set", "=", "macro",
        "endmacro", "call", "loop", ".", "[", "]", "'", "\"", "sh", "outptu", "output", "|", "(", ")", ",", "-",
        " ", "input", "topic", "env", "run", "raw", "endraw", "if", "endif", "0", "\\", "\n");
    Random random = new Random(7);
    for (int i = 0; i < 1500; i++) {
      StringBuilder t = new StringBuilder();
      for (int k = random.nextInt(14); k >= 0; k--) {
        t.append(pieces.get(random.nextInt(pieces.size())));
      }
      String yaml = workflow(t.toString(), "x");
      assertThatCode(() -> {
        try {
          ENGINE.parse(yaml, "refs.yaml");
        } catch (WorkflowInvalidException expected) {
          assertThat(expected.problems()).isNotEmpty()
              .allSatisfy(p -> assertThat(p.location().line()).isPositive());
        }
      }).as(t.toString()).doesNotThrowAnyException();
    }
  }

  @Test
  void withoutDeclaredInputsAnyInputMayBeRead() {
    assertThatCode(() -> ENGINE.parse("""
        name: free
        nodes:
          - {id: t, type: transform, template: "{{ input.anything }} {{ flow.input.other }}"}
        """, "free.yaml")).doesNotThrowAnyException();
  }

  @Test
  void routeConditionsReadTheRoutersValue_bugValueRejectedInRoutes() {
    assertThatCode(() -> ENGINE.parse("""
        name: route
        nodes:
          - id: r
            type: router
            value: "{{ input.x }}"
            routes: {big: "value > 3", small: {lt: {var: value, value: 3}}, other: default}
        """, "route.yaml")).doesNotThrowAnyException();
  }
}
