package dev.loopflow.core.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loopflow.core.LoopBodies;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The graph of a workflow: every construct's body as a container, loop-backs and restarts as edges with their
 * bounds, match paths as the engine's positions read without iterations, hostile ids carried as data, and the JSON
 * shape the web UI reads. That every journaled path of real runs lands on exactly one element is checked by running
 * every example (the CLI module's GraphPathsTest).
 */
class WorkflowGraphTest {
  private static final Loopflow ENGINE = Loopflow.create();

  private static WorkflowGraph graph(String yaml) {
    return Loopflow.graph(ENGINE.parse(yaml, "t.yaml"));
  }

  private static GraphNode node(WorkflowGraph g, String key) {
    return g.nodes().stream().filter(n -> n.key().equals(key)).findFirst()
        .orElseThrow(() -> new AssertionError("no node " + key + " in " + g.nodes()));
  }

  private static GraphContainer container(WorkflowGraph g, String key) {
    return g.containers().stream().filter(c -> c.key().equals(key)).findFirst()
        .orElseThrow(() -> new AssertionError("no container " + key + " in " + g.containers()));
  }

  private static final String EVERY_CONSTRUCT = """
      name: every-construct
      input:
        words: {type: array, default: ["a", "bb"]}
      nodes:
        - {id: start, type: transform, template: "go"}
        - {id: each, type: iterator, items: "{{ input.words }}", concurrency: 2}
        - id: w
          type: while_loop
          max_iterations: 3
          condition: "(state.n or 0) < 2"
          body:
            - {id: inc, run: "return { n = (state.n or 0) + 1 }"}
        - {id: collect, type: aggregator}
        - {id: check, type: transform, template: "{{ loop.iteration }}"}
        - id: outer
          loop_group:
            max_iterations: 4
            until_bash: "test 1 = 1"
            interactive: true
            nodes:
              - {id: prep, type: transform, template: "p"}
              - id: refine
                depends_on: [prep]
                type: loop
                maxIterations: 2
                exitCondition: max_iterations
              - {id: draft, depends_on: [refine], type: transform, template: "d"}
              - {id: refine_exit, depends_on: [draft], type: exit}
        - id: pick
          type: router
          routes: {left: "input.words | length > 1", right: default}
        - {id: l, type: transform, template: "L"}
        - {id: r, type: transform, template: "R"}
      edges:
        - {from: __start__, to: start}
        - {from: start, to: each}
        - {from: each, to: w}
        - {from: w, to: collect}
        - {from: collect, to: check}
        - {from: check, to: start, type: loop, maxIterations: 2, when: "loop.iteration < 2"}
        - {from: check, to: outer}
        - {from: outer, to: pick}
        - {from: pick, to: l, branch: left}
        - {from: pick, to: r, branch: right}
        - {from: l, to: __end__}
      """;

  @Test
  void everyLoopConstructIsAContainerWithItsBoundAndALoopBackEdge() {
    WorkflowGraph g = graph(EVERY_CONSTRUCT);

    assertThat(g.containers()).extracting(GraphContainer::key, GraphContainer::node, GraphContainer::construct,
        GraphContainer::max, GraphContainer::parent, GraphContainer::path).containsExactlyInAnyOrder(
        tuple("[check->start]", null, "loop_edge", 2, null, "check->start"),
        tuple("[each]", "each", "iterator", null, "[check->start]", "check->start.each"),
        tuple("[w]", "w", "while_loop", 3, "[each]", "check->start.each.w"),
        tuple("[outer]", "outer", "loop_group", 4, null, "outer"),
        tuple("[outer/refine]", "outer/refine", "loop", 2, "[outer]", "outer.refine"));
    // The loop edge goes back with its condition and bound; each loop node's body goes back to it.
    assertThat(g.edges()).contains(
        new GraphEdge("check", "start", "loop.iteration < 2", GraphEdge.Kind.LOOP_BACK, 2),
        new GraphEdge("[each]", "each", "next item", GraphEdge.Kind.LOOP_BACK, null),
        new GraphEdge("[w]", "w", "next pass", GraphEdge.Kind.LOOP_BACK, 3),
        new GraphEdge("[outer]", "outer", "next pass", GraphEdge.Kind.LOOP_BACK, 4),
        new GraphEdge("[outer/refine]", "outer/refine", "next pass", GraphEdge.Kind.LOOP_BACK, 2),
        new GraphEdge("w", "[w]", null, GraphEdge.Kind.NEXT, null),
        new GraphEdge("pick", "l", "left", GraphEdge.Kind.BRANCH, null),
        new GraphEdge("pick", "r", "right", GraphEdge.Kind.BRANCH, null),
        new GraphEdge("__start__", "start", null, GraphEdge.Kind.NEXT, null),
        new GraphEdge("l", "__end__", null, GraphEdge.Kind.NEXT, null));
    assertThat(g.edges()).filteredOn(e -> e.kind() == GraphEdge.Kind.LOOP_BACK).hasSize(5);
    assertThat(g.restart()).isNull();
  }

  @Test
  void nodePathsAreTheEnginesPositionsWithoutIterations() {
    WorkflowGraph g = graph(EVERY_CONSTRUCT);

    assertThat(g.nodes()).extracting(GraphNode::key, GraphNode::parent, GraphNode::path, GraphNode::role)
        .containsExactly(
            tuple("__start__", null, null, GraphNode.Role.START),
            tuple("start", "[check->start]", "check->start.start", GraphNode.Role.NODE),
            tuple("each", "[check->start]", "check->start.each", GraphNode.Role.NODE),
            tuple("w", "[each]", "check->start.each.w", GraphNode.Role.NODE),
            tuple("w/inc", "[w]", "check->start.each.w.inc", GraphNode.Role.NODE),
            tuple("collect", "[check->start]", "check->start.collect",
                GraphNode.Role.NODE),
            tuple("check", "[check->start]", "check->start.check", GraphNode.Role.NODE),
            tuple("outer", null, "outer", GraphNode.Role.NODE),
            tuple("outer/prep", "[outer]", "outer.prep", GraphNode.Role.NODE),
            tuple("outer/refine", "[outer]", "outer.refine", GraphNode.Role.NODE),
            tuple("outer/draft", "[outer/refine]", "outer.refine.draft",
                GraphNode.Role.NODE),
            tuple("outer/refine_exit", "[outer]", "outer.refine_exit",
                GraphNode.Role.NODE),
            tuple("outer/$until", "[outer]", "outer.$until",
                GraphNode.Role.UNTIL_COMMAND),
            tuple("outer/gate", "[outer]", "outer.gate", GraphNode.Role.GATE),
            tuple("pick", null, "pick", GraphNode.Role.NODE),
            tuple("l", null, "l", GraphNode.Role.NODE),
            tuple("r", null, "r", GraphNode.Role.NODE),
            tuple("__end__", null, null, GraphNode.Role.END));
    assertThat(node(g, "outer").loop()).isEqualTo(new GraphNode.Loop("loop_group", 4));
    assertThat(node(g, "each").loop()).isEqualTo(new GraphNode.Loop("iterator", null));
    assertThat(node(g, "pick").loop()).isNull();
    assertThat(node(g, "pick").kind()).isEqualTo("router");
  }

  @Test
  void theBodiesOfGraphFormLoopsAreLoopBodies() {
    for (String yaml : List.of(EVERY_CONSTRUCT, RESTART)) {
      Workflow wf = ENGINE.parse(yaml, "t.yaml");
      WorkflowGraph g = Loopflow.graph(wf);
      Map<String, GraphContainer> byKey = new HashMap<>();
      g.containers().forEach(c -> byKey.put(c.key(), c));
      LoopBodies.of(wf.nodes(), wf.edges()).forEach((loop, body) -> {
        List<String> inside = g.nodes().stream().filter(n -> n.role() == GraphNode.Role.NODE
            && !n.key().contains("/") && within(n.parent(), "[" + loop + "]", byKey)).map(GraphNode::id).toList();
        assertThat(inside).as(loop).containsExactlyInAnyOrderElementsOf(body);
      });
    }
  }

  private static boolean within(String container, String wanted, Map<String, GraphContainer> byKey) {
    for (String c = container; c != null; c = byKey.get(c).parent()) {
      if (c.equals(wanted)) {
        return true;
      }
    }
    return false;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      "check->start[1].each[2].w[3].inc", "check->start[10].each[1].w[1].inc", "check->start.each.w.inc"})
  void aJournaledPathLandsOnItsNodeWhateverItsIterations(String path) {
    WorkflowGraph g = graph(EVERY_CONSTRUCT);

    assertThat(g.at(path)).containsSame(node(g, "w/inc"));
  }

  @Test
  void whatEachKindOfJournaledPathLandsOn() {
    WorkflowGraph g = graph(EVERY_CONSTRUCT);

    assertThat(g.at("outer")).containsSame(node(g, "outer")); // a loop node's own loop events
    assertThat(g.at("check->start")).containsSame(container(g, "[check->start]")); // a loop edge has no node
    assertThat(g.at("outer[2].$until")).containsSame(node(g, "outer/$until"));
    assertThat(g.at("outer[1].gate")).containsSame(node(g, "outer/gate"));
    assertThat(g.at("outer[1].refine[2].draft")).containsSame(node(g, "outer/draft"));
    assertThat(g.at("pick")).containsSame(node(g, "pick"));
    // Names of nothing in this workflow (another version of the file, a typo) land nowhere.
    assertThat(g.at("draft")).isEmpty();
    assertThat(g.at("outer[1].nope")).isEmpty();
    assertThat(g.at("restart[1].pick")).isEmpty();
    assertThat(g.at("restart")).isEmpty();
    assertThat(g.at("")).isEmpty();
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("matchPaths")
  void matchPathRemovesEveryIterationAndNothingElse(String path, String match) {
    assertThat(WorkflowGraph.matchPath(path)).isEqualTo(match);
  }

  static Stream<Arguments> matchPaths() {
    return Stream.of(
        Arguments.of("fix_until_pass[2].implement", "fix_until_pass.implement"),
        Arguments.of("restart[1].a->b[12].c", "restart.a->b.c"),
        Arguments.of("a-->b[3].a-", "a-->b.a-"),
        Arguments.of("top", "top"),
        Arguments.of("g[1].$until", "g.$until"),
        Arguments.of("restart[2].verify~restart", "restart.verify~restart"));
  }

  private static final String RESTART = """
      name: restart-graph
      restart_policy:
        enabled: true
        max_iterations: 3
        restart_triggers: [verify]
        restartable_stages: [implement]
      nodes:
        - {id: plan, type: transform, template: "p"}
        - {id: implement, type: transform, template: "i"}
        - {id: review, type: transform, template: "r"}
        - {id: verify, type: transform, template: "v"}
      edges:
        - {from: plan, to: implement}
        - {from: implement, to: review}
        - {from: review, to: implement, type: loop, maxIterations: 2, when: "false"}
        - {from: review, to: verify}
      """;

  @Test
  void aRestartPolicyPutsEveryPathUnderTheRestartLoopAndDrawsItsBackEdges() {
    WorkflowGraph g = graph(RESTART);

    assertThat(g.nodes()).extracting(GraphNode::path).containsExactly("restart.plan",
        "restart.review->implement.implement", "restart.review->implement.review", "restart.verify");
    assertThat(g.restart()).isEqualTo(new GraphRestart(true, List.of("implement"), List.of("verify"), 3));
    assertThat(g.edges()).filteredOn(e -> e.kind() == GraphEdge.Kind.RESTART)
        .containsExactly(new GraphEdge("verify", "implement", "restart", GraphEdge.Kind.RESTART, 3));
    assertThat(g.at("restart")).containsSame(g.restart());
    assertThat(g.at("restart[2].plan")).containsSame(node(g, "plan"));
    assertThat(g.at("restart[1].review->implement[2].review")).containsSame(node(g, "review"));
    // Restart decisions are journaled after a node (or a loop edge's region) completed; they belong to it.
    assertThat(g.at("restart[1].verify~restart")).containsSame(node(g, "verify"));
    assertThat(g.at("restart[1].review->implement~restart")).containsSame(container(g, "[review->implement]"));
    assertThat(g.at("restart[1].nope~restart")).isEmpty();
    assertThat(g.at("verify")).isEmpty();
  }

  @Test
  void aPipelineIsItsStagesUnderTheRestartLoop() {
    WorkflowGraph g = Loopflow.graph(Loopflow.builder().handler(new AgentStub()).build().parse("""
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: discovery, prompt_template: "Discover"}
                - {agent_id: analysis, prompt_template: "Analyze: {{previous}}"}
                - {agent_id: report, prompt_template: "Report: {{previous}}"}
            max_iterations: 4
            restart_policy: {enabled: true}
        """, "p.yaml"));

    assertThat(g.nodes()).extracting(GraphNode::id, GraphNode::kind, GraphNode::path).containsExactly(
        tuple("discovery", "agent", "restart.discovery"),
        tuple("analysis", "agent", "restart.analysis"),
        tuple("report", "agent", "restart.report"));
    // Any stage may restart an earlier one: the last stage (nothing depends on it) back to the first.
    assertThat(g.edges()).containsExactly(
        new GraphEdge("discovery", "analysis", null, GraphEdge.Kind.NEXT, null),
        new GraphEdge("analysis", "report", null, GraphEdge.Kind.NEXT, null),
        new GraphEdge("report", "discovery", "restart", GraphEdge.Kind.RESTART, 4));
    assertThat(g.restart().maxIterations()).isEqualTo(4);
  }

  @Test
  void aPipelineWithRestartsOffStillRunsUnderTheRestartLoopButHasNoRestartEdges() {
    WorkflowGraph g = Loopflow.graph(Loopflow.builder().handler(new AgentStub()).build().parse("""
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: one, prompt_template: "1"}
                - {agent_id: two, prompt_template: "2 {{previous}}"}
        """, "p.yaml"));

    assertThat(g.restart()).isEqualTo(new GraphRestart(false, List.of(), List.of(), 3));
    assertThat(g.edges()).noneMatch(e -> e.kind() == GraphEdge.Kind.RESTART);
    assertThat(g.nodes()).extracting(GraphNode::path).containsExactly("restart.one", "restart.two");
  }

  @Test
  void aWorkflowBuiltInJavaHasItsGraphToo() {
    WorkflowGraph g = Loopflow.graph(ENGINE.workflow("greet")
        .node("hello", "shell", Map.of("command", "echo hi"))
        .node("count", ctx -> NodeOutcome.of(1))
        .edge("hello", "count", "hello.output != ''")
        .build());

    assertThat(g.workflow()).isEqualTo("greet");
    assertThat(g.nodes()).extracting(GraphNode::id, GraphNode::path).containsExactly(
        tuple("hello", "hello"), tuple("count", "count"));
    assertThat(g.edges()).containsExactly(
        new GraphEdge("hello", "count", "hello.output != ''", GraphEdge.Kind.NEXT, null));
  }

  // ---------------------------------------------------------------------------------------------------------
  // Hostile ids and the JSON form

  static Stream<String> hostileIds() {
    return Stream.of("__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "valueOf", "__defineGetter__",
        "then", "length", "_", "a-", "A" + "x".repeat(5000), "end", "null", "undefined", "NaN", "true", "False", "__start__x");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileIds")
  void hostileIdsAreCarriedVerbatimAndNeverBecomeJsonKeys(String id) throws Exception {
    WorkflowGraph g = graph("""
        name: "%1$s"
        nodes:
          - {id: "%1$s", type: transform, template: "1"}
          - id: g
            loop_group:
              max_iterations: 2
              nodes:
                - {id: "%1$s", type: transform, template: "2"}
          - {id: after, type: transform, template: "3"}
        edges:
          - {from: "%1$s", to: g}
          - {from: g, to: after}
          - {from: after, to: "%1$s", type: loop, maxIterations: 2, when: "false"}
        """.formatted(id));

    JsonNode json = Json.mapper().valueToTree(g.toJson());
    assertThat(json.get("workflow").asText()).isEqualTo(id);
    assertThat(json.get("nodes")).extracting(n -> n.get("id").asText()).containsExactly(id, "g", id, "after");
    assertThat(json.get("nodes")).extracting(n -> n.get("title").asText()).containsExactly(id, "g", id, "after");
    assertThat(json.get("nodes")).extracting(n -> n.get("path").asText()).containsExactly("after->" + id + "." + id,
        "after->" + id + ".g", "after->" + id + ".g." + id, "after->" + id + ".after");
    assertThat(json.get("nodes").get(2).get("key").asText()).isEqualTo("g/" + id);
    assertThat(json.get("edges")).anySatisfy(e -> {
      assertThat(e.get("from").asText()).isEqualTo("after");
      assertThat(e.get("to").asText()).isEqualTo(id);
      assertThat(e.get("kind").asText()).isEqualTo("loop_back");
    });
    assertShape(json);
  }

  @Test
  void theJsonHasExactlyTheDocumentedFieldsWithNullsWrittenOut() throws Exception {
    JsonNode json = Json.mapper().valueToTree(graph(EVERY_CONSTRUCT).toJson());
    assertShape(json);
    JsonNode start = json.get("nodes").get(0);
    assertThat(start.get("kind").isNull()).isTrue();
    assertThat(start.get("path").isNull()).isTrue();
    assertThat(json.get("restart").isNull()).isTrue();
    JsonNode restart = Json.mapper().valueToTree(graph(RESTART).toJson()).get("restart");
    assertThat(restart.get("targets")).extracting(JsonNode::asText).containsExactly("implement");
    assertThat(restart.get("max_iterations").asInt()).isEqualTo(3);
    assertThat(restart.get("path").asText()).isEqualTo("restart");
  }

  private static void assertShape(JsonNode json) {
    assertThat(json.fieldNames()).toIterable().containsExactly("workflow", "nodes", "containers", "edges", "restart");
    for (JsonNode n : json.get("nodes")) {
      assertThat(n.fieldNames()).toIterable().containsExactly("key", "id", "title", "kind", "parent", "path", "loop",
          "role");
      if (!n.get("loop").isNull()) {
        assertThat(n.get("loop").fieldNames()).toIterable().containsExactly("construct", "max");
      }
    }
    for (JsonNode c : json.get("containers")) {
      assertThat(c.fieldNames()).toIterable().containsExactly("key", "node", "title", "construct", "max", "parent",
          "path");
    }
    for (JsonNode e : json.get("edges")) {
      assertThat(e.fieldNames()).toIterable().containsExactly("from", "to", "label", "kind", "max");
      assertThat(e.get("kind").asText()).isIn("next", "branch", "loop_back", "restart");
    }
  }

  @Test
  void everyEdgeJoinsKeysOfTheGraphAndEveryParentIsAContainer() {
    for (String yaml : List.of(EVERY_CONSTRUCT, RESTART)) {
      WorkflowGraph g = graph(yaml);
      List<String> keys = Stream.concat(g.nodes().stream().map(GraphNode::key),
          g.containers().stream().map(GraphContainer::key)).toList();
      assertThat(keys).doesNotHaveDuplicates();
      List<String> containerKeys = g.containers().stream().map(GraphContainer::key).toList();
      assertThat(g.edges()).allSatisfy(e -> assertThat(keys).contains(e.from(), e.to()));
      assertThat(g.nodes()).allSatisfy(n -> assertThat(n.parent() == null || containerKeys.contains(n.parent()))
          .as(n.key()).isTrue());
      assertThat(g.containers()).allSatisfy(c -> assertThat(c.parent() == null || containerKeys.contains(c.parent()))
          .as(c.key()).isTrue());
    }
  }

  @Test
  void conditionsAreCarriedWholeAsWritten() {
    String condition = "input.t != '-->|\"] end' and input.t != '" + "x".repeat(300) + "'";
    WorkflowGraph g = graph("""
        input: {t: string}
        nodes:
          - {id: a, type: transform, template: "1"}
          - {id: b, type: transform, template: "2"}
        edges:
          - from: a
            to: b
            when: >-
              %s
        """.formatted(condition));

    assertThat(g.edges()).singleElement().extracting(GraphEdge::label).isEqualTo(condition);
  }

  @Test
  void theGraphCannotBeChanged() {
    WorkflowGraph g = graph(EVERY_CONSTRUCT);
    assertThatThrownBy(() -> g.nodes().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> g.edges().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> g.containers().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> g.toJson().clear()).isInstanceOf(UnsupportedOperationException.class);
    @SuppressWarnings("unchecked")
    List<Object> nodes = (List<Object>) g.toJson().get("nodes");
    assertThatThrownBy(nodes::clear).isInstanceOf(UnsupportedOperationException.class);
  }

  // ---------------------------------------------------------------------------------------------------------
  // The gate's position

  @Test
  void bodyNodeNamedGateInAnInteractiveGroupIsRejected_bugGateAnswerReadFromABodyNodesJournalRow() {
    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class, () -> ENGINE.parse("""
        nodes:
          - id: g
            loop_group:
              max_iterations: 3
              interactive: true
              nodes:
                - {id: gate, type: transform, template: "pass {{ loop.iteration }}"}
        """, "t.yaml"));

    assertThat(e).isNotNull();
    assertThat(e.problems()).extracting(Problem::format).containsExactly("t.yaml:7:16: nodes.g.nodes.gate.id: node "
        + "id 'gate' is reserved in the body of an interactive loop_group: the group waits for its person at "
        + "'g[N].gate'; rename the node");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"interactive: false", "interactive: true\n      # nested one level down",
      "until: DONE"})
  void gateIsAnOrdinaryIdWhereNoGateWaits(String setting) {
    String yaml = setting.startsWith("interactive: true") ? """
        nodes:
          - id: g
            loop_group:
              max_iterations: 3
              interactive: true
              nodes:
                - id: inner
                  loop_group:
                    max_iterations: 2
                    nodes:
                      - {id: gate, type: transform, template: "x"}
        """ : """
        nodes:
          - id: g
            loop_group:
              max_iterations: 3
              %s
              nodes:
                - {id: gate, type: transform, template: "x"}
        """.formatted(setting);
    WorkflowGraph g = graph(yaml);
    assertThat(g.nodes()).extracting(GraphNode::path).contains(yaml.contains("inner") ? "g.inner.gate" : "g.gate");
  }

  /** A stand-in for the LLM module's agent kind, so pipelines load in core tests. */
  private static final class AgentStub implements NodeHandler {
    @Override
    public NodeKindSpec spec() {
      return NodeKindSpec.of("agent", null, List.of(FieldSpec.any("model", null), FieldSpec.any("output_schema", null),
          FieldSpec.any("prompt", null), FieldSpec.any("tools", null)));
    }

    @Override
    public NodeProgram compile(NodeConfig cfg) {
      return ctx -> NodeOutcome.of("");
    }
  }
}
