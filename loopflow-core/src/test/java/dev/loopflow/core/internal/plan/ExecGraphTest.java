package dev.loopflow.core.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Location;
import dev.loopflow.core.internal.plan.Constructs.Construct;
import dev.loopflow.core.internal.plan.Constructs.Issue;
import dev.loopflow.core.internal.plan.ExecGraph.Incoming;
import dev.loopflow.core.internal.plan.ExecGraph.NodeUnit;
import dev.loopflow.core.internal.plan.ExecGraph.RegionUnit;
import dev.loopflow.core.internal.plan.ExecGraph.Unit;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The execution plan on its own: which units each level schedules, how many units each waits for, and how loop
 * edges, loop/iterator nodes and nested bodies become units owning their own levels. Workflows are loaded through
 * the engine (so the plan sees validated nodes); the overlap checks get loop edges the loader would refuse.
 */
class ExecGraphTest {
  private static final Loopflow ENGINE = Loopflow.create();

  private static Workflow load(String yaml) {
    return ENGINE.parse(yaml, "t.yaml");
  }

  private static ExecGraph plan(String yaml) {
    Workflow wf = load(yaml);
    return ExecGraph.of(wf.nodes(), wf.edges());
  }

  /** Each unit as {@code id} for a node and {@code id{members}} for a region. */
  private static List<String> units(ExecGraph g) {
    return g.units().stream().map(ExecGraphTest::show).toList();
  }

  private static String show(Unit u) {
    return switch (u) {
      case NodeUnit n -> n.id();
      case RegionUnit r -> r.id() + r.members();
    };
  }

  private static Map<String, Integer> dependencyCounts(ExecGraph g) {
    return g.units().stream().collect(Collectors.toMap(Unit::id, u -> g.dependencyCount(u.id()), (a, b) -> a,
        java.util.LinkedHashMap::new));
  }

  private static List<String> froms(List<Incoming> incoming) {
    return incoming.stream().map(Incoming::from).toList();
  }

  private static String transforms(String... ids) {
    StringBuilder b = new StringBuilder("name: g\nnodes:\n");
    for (String id : ids) {
      b.append("  - id: ").append(id).append("\n    type: transform\n    template: \"").append(id).append("\"\n");
    }
    return b.toString();
  }

  private static Edge loopEdge(String from, String to) {
    return new Edge(from, to, Edge.Type.LOOP, null, null, 3, Edge.OnExhausted.FAIL, Location.UNKNOWN);
  }

  // --- one level ---------------------------------------------------------------------------------------------------

  @Test
  void nodesWithoutEdgesFormAChainInListedOrder() {
    ExecGraph g = plan(transforms("a", "b", "c"));

    assertThat(units(g)).containsExactly("a", "b", "c");
    assertThat(g.units()).allSatisfy(u -> assertThat(u).isInstanceOf(NodeUnit.class));
    assertThat(dependencyCounts(g)).containsExactlyInAnyOrderEntriesOf(Map.of("a", 0, "b", 1, "c", 1));
    assertThat(g.successors("a")).containsExactly("b");
    assertThat(g.successors("c")).isEmpty();
    assertThat(froms(g.incoming("c"))).containsExactly("b");
    assertThat(g.entry()).isNull();
  }

  @Test
  void declaredEdgesReplaceListedOrderAndAJoinWaitsForEachPredecessor() {
    ExecGraph g = plan(transforms("a", "b", "c", "d") + """
        edges:
          - {from: a, to: c}
          - {from: b, to: c, when: "a.output == 'a'"}
          - {from: c, to: d}
        """);

    assertThat(dependencyCounts(g)).containsExactlyInAnyOrderEntriesOf(Map.of("a", 0, "b", 0, "c", 2, "d", 1));
    assertThat(g.incoming("c")).extracting(Incoming::from, i -> i.when() != null)
        .containsExactly(tuple("a", false), tuple("b", true));
    assertThat(g.successors("a")).containsExactly("c");
    assertThat(g.successors("b")).containsExactly("c");
  }

  @Test
  void routerBranchesAreKeptOnTheIncomingEdges() {
    ExecGraph g = plan("""
        name: g
        nodes:
          - id: pick
            type: router
            routes:
              ship: "true"
              hold: default
          - id: left
            type: transform
            template: "l"
          - id: right
            type: transform
            template: "r"
        edges:
          - {from: pick, to: left, branch: ship}
          - {from: pick, to: right, branch: hold}
        """);

    assertThat(g.incoming("left")).extracting(Incoming::from, Incoming::branch)
        .containsExactly(tuple("pick", "ship"));
    assertThat(g.incoming("right")).extracting(Incoming::branch).containsExactly("hold");
    assertThat(g.successors("pick")).containsExactlyInAnyOrder("left", "right");
  }

  // --- loop edges ------------------------------------------------------------------------------------------------

  private static final String CODER_REVIEWER = transforms("prep", "coder", "reviewer", "publish") + """
      edges:
        - {from: prep, to: coder}
        - {from: coder, to: reviewer}
        - {from: reviewer, to: publish}
        - {from: reviewer, to: coder, type: loop, maxIterations: 3}
      """;

  @Test
  void loopEdgeRegionIsOneUnitOwningItsCycleAndWaitedForAsAWhole() {
    ExecGraph g = plan(CODER_REVIEWER);

    assertThat(units(g)).containsExactly("prep", "reviewer->coder[coder, reviewer]", "publish");
    assertThat(g.unit("reviewer->coder")).isInstanceOfSatisfying(RegionUnit.class, r -> {
      assertThat(r.edge().from()).isEqualTo("reviewer");
      assertThat(r.edge().maxIterations()).isEqualTo(3);
      assertThat(units(r.body())).containsExactly("coder", "reviewer");
      assertThat(dependencyCounts(r.body())).containsExactlyInAnyOrderEntriesOf(Map.of("coder", 0, "reviewer", 1));
    });
    assertThat(dependencyCounts(g))
        .containsExactlyInAnyOrderEntriesOf(Map.of("prep", 0, "reviewer->coder", 1, "publish", 1));
    assertThat(g.successors("prep")).containsExactly("reviewer->coder");
    assertThat(g.successors("reviewer->coder")).containsExactly("publish");
    // The edge keeps the node the value comes from, so conditions are evaluated against reviewer, not the region.
    assertThat(froms(g.incoming("publish"))).containsExactly("reviewer");
    assertThat(g.unit("coder")).isNull();
  }

  @Test
  void selfLoopEdgeIsARegionOfOneNode() {
    ExecGraph g = plan(transforms("poll", "done") + """
        edges:
          - {from: poll, to: done}
          - {from: poll, to: poll, type: loop, maxIterations: 5}
        """);

    assertThat(units(g)).containsExactly("poll->poll[poll]", "done");
    assertThat(dependencyCounts(g)).containsExactlyInAnyOrderEntriesOf(Map.of("poll->poll", 0, "done", 1));
  }

  @Test
  void regionNestedInAnotherRegionIsAUnitOfTheOuterRegionsBody() {
    ExecGraph g = plan(transforms("plan", "code", "test", "ship") + """
        edges:
          - {from: plan, to: code}
          - {from: code, to: test}
          - {from: test, to: ship}
          - {from: test, to: code, type: loop, maxIterations: 2}
          - {from: test, to: plan, type: loop, maxIterations: 3}
        """);

    assertThat(units(g)).containsExactly("test->plan[plan, code, test]", "ship");
    RegionUnit outer = (RegionUnit) g.unit("test->plan");
    assertThat(units(outer.body())).containsExactly("plan", "test->code[code, test]");
    assertThat(dependencyCounts(outer.body())).containsExactlyInAnyOrderEntriesOf(Map.of("plan", 0, "test->code", 1));
    RegionUnit inner = (RegionUnit) outer.body().unit("test->code");
    assertThat(units(inner.body())).containsExactly("code", "test");
    assertThat(dependencyCounts(g)).containsEntry("ship", 1);
  }

  // --- loop and iterator nodes -------------------------------------------------------------------------------------

  /** refine (a loop node) → draft → judge → refine_exit → after, plus {@code extraEdges} (YAML list items). */
  private static String refine(String extraEdges) {
    return """
        name: g
        nodes:
          - id: refine
            type: loop
            maxIterations: 2
          - id: draft
            type: transform
            template: "d"
          - id: judge
            type: transform
            template: "j"
          - id: refine_exit
            type: exit
          - id: after
            type: transform
            template: "a"
        edges:
          - {from: refine, to: draft}
          - {from: draft, to: judge}
          - {from: judge, to: refine_exit}
          - {from: refine_exit, to: after}
        """ + extraEdges;
  }

  @Test
  void loopNodeOwnsTheNodesUpToItsExitWhichWaitsForTheLoop() {
    ExecGraph g = plan(refine(""));

    assertThat(units(g)).containsExactly("refine", "refine_exit", "after");
    assertThat(dependencyCounts(g))
        .containsExactlyInAnyOrderEntriesOf(Map.of("refine", 0, "refine_exit", 1, "after", 1));
    assertThat(froms(g.incoming("refine_exit"))).containsExactly("refine");
    ExecGraph.Body body = g.body("refine");
    assertThat(units(body.graph())).containsExactly("draft", "judge");
    assertThat(dependencyCounts(body.graph())).containsExactlyInAnyOrderEntriesOf(Map.of("draft", 0, "judge", 1));
    assertThat(body.graph().entry()).isEqualTo("refine");
    assertThat(froms(body.exitEdges())).containsExactly("judge");
  }

  @Test
  void iteratorNodeOwnsTheNodesUpToItsAggregator() {
    ExecGraph g = plan("""
        name: g
        nodes:
          - id: each
            type: iterator
            items: "{{ input.list }}"
          - id: work
            type: transform
            template: "w"
          - id: collect
            type: aggregator
        edges:
          - {from: each, to: work}
          - {from: work, to: collect}
        """);

    assertThat(units(g)).containsExactly("each", "collect");
    assertThat(dependencyCounts(g)).containsExactlyInAnyOrderEntriesOf(Map.of("each", 0, "collect", 1));
    assertThat(units(g.body("each").graph())).containsExactly("work");
    assertThat(froms(g.body("each").exitEdges())).containsExactly("work");
  }

  @Test
  void loopEdgeInsideALoopNodeBodyIsARegionOfThatBody() {
    ExecGraph g = plan(refine("  - {from: judge, to: judge, type: loop, maxIterations: 5}\n"));

    assertThat(units(g)).containsExactly("refine", "refine_exit", "after");
    ExecGraph body = g.body("refine").graph();
    assertThat(units(body)).containsExactly("draft", "judge->judge[judge]");
    assertThat(dependencyCounts(body)).containsExactlyInAnyOrderEntriesOf(Map.of("draft", 0, "judge->judge", 1));
    assertThat(froms(g.body("refine").exitEdges())).containsExactly("judge");
  }

  // --- nested bodies -----------------------------------------------------------------------------------------------

  @Test
  void whileLoopBodyRunsInListedOrderAndLoopGroupBodyByDependsOn() {
    ExecGraph g = plan("""
        name: g
        nodes:
          - id: count
            type: while_loop
            max_iterations: 3
            condition: "false"
            body:
              - id: one
                type: transform
                template: "1"
              - id: two
                type: transform
                template: "2"
          - id: fix
            loop_group:
              max_iterations: 2
              nodes:
                - id: left
                  type: transform
                  template: "l"
                - id: right
                  type: transform
                  template: "r"
                - id: join
                  depends_on: [left, right]
                  type: transform
                  template: "j"
        """);

    assertThat(units(g)).containsExactly("count", "fix");
    assertThat(dependencyCounts(g)).containsExactlyInAnyOrderEntriesOf(Map.of("count", 0, "fix", 1));
    ExecGraph whileBody = g.body("count").graph();
    assertThat(dependencyCounts(whileBody)).containsExactlyInAnyOrderEntriesOf(Map.of("one", 0, "two", 1));
    assertThat(g.body("count").exitEdges()).isEmpty();
    ExecGraph groupBody = g.body("fix").graph();
    assertThat(dependencyCounts(groupBody))
        .containsExactlyInAnyOrderEntriesOf(Map.of("left", 0, "right", 0, "join", 2));
    assertThat(g.body("fix").exitEdges()).isEmpty();
  }

  @Test
  void nestedLoopGroupBodiesAreEachTheirOwnLevel() {
    ExecGraph g = plan("""
        name: g
        nodes:
          - id: outer
            loop_group:
              max_iterations: 2
              nodes:
                - id: inner
                  loop_group:
                    max_iterations: 2
                    nodes:
                      - id: work
                        type: transform
                        template: "w"
                - id: report
                  depends_on: [inner]
                  type: transform
                  template: "r"
        """);

    ExecGraph outer = g.body("outer").graph();
    assertThat(units(outer)).containsExactly("inner", "report");
    assertThat(dependencyCounts(outer)).containsExactlyInAnyOrderEntriesOf(Map.of("inner", 0, "report", 1));
    assertThat(units(outer.body("inner").graph())).containsExactly("work");
    assertThat(g.unit("work")).isNull();
    assertThat(outer.unit("work")).isNull();
  }

  // --- construct discovery -----------------------------------------------------------------------------------------

  /** a → b → c → d, with the given loop edges added to the loaded forward edges. */
  private static List<Construct> constructs(List<Issue> issues, Edge... loops) {
    Workflow wf = load(transforms("a", "b", "c", "d") + """
        edges:
          - {from: a, to: b}
          - {from: b, to: c}
          - {from: c, to: d}
        """);
    List<Edge> edges = new ArrayList<>(wf.edges());
    edges.addAll(List.of(loops));
    return Constructs.find(wf.nodes(), edges, issues);
  }

  @Test
  void nestedLoopEdgesAreBothFoundWithoutIssues() {
    List<Issue> issues = new ArrayList<>();
    List<Construct> found = constructs(issues, loopEdge("c", "b"), loopEdge("d", "a"));

    assertThat(issues).isEmpty();
    assertThat(found).extracting(Construct::id, c -> List.copyOf(c.span()))
        .containsExactly(tuple("c->b", List.of("b", "c")),
            tuple("d->a", List.of("a", "b", "c", "d")));
  }

  @Test
  void disjointLoopEdgesAreBothFound() {
    List<Issue> issues = new ArrayList<>();
    assertThat(constructs(issues, loopEdge("b", "a"), loopEdge("d", "c"))).extracting(Construct::id)
        .containsExactly("b->a", "d->c");
    assertThat(issues).isEmpty();
  }

  @Test
  void overlappingLoopEdgesAreAnIssueAndOnlyTheFirstIsKept() {
    List<Issue> issues = new ArrayList<>();
    Edge second = loopEdge("d", "b");
    List<Construct> found = constructs(issues, loopEdge("c", "a"), second);

    assertThat(found).extracting(Construct::id).containsExactly("c->a");
    assertThat(issues).singleElement().satisfies(i -> {
      assertThat(i.where()).isSameAs(second);
      assertThat(i.message()).isEqualTo("loop edge d -> b [b, c, d] overlaps loop edge c -> a [a, b, c] without one "
          + "containing the other; loops must nest or be disjoint");
    });
  }

  @Test
  void twoLoopEdgesOverTheSameNodesAreAnIssue_bugDuplicateLoopEdgesNeverLoop() {
    List<Issue> issues = new ArrayList<>();
    List<Construct> found = constructs(issues, loopEdge("c", "a"), loopEdge("c", "a"));

    assertThat(found).hasSize(1);
    assertThat(issues).extracting(Issue::message).containsExactly("loop edge c -> a [a, b, c] repeats exactly the "
        + "same nodes as loop edge c -> a [a, b, c]; merge them into one loop");
  }

  @Test
  void loopEdgeThatClosesNoCycleIsAnIssue() {
    List<Issue> issues = new ArrayList<>();
    Edge forward = loopEdge("a", "c");

    assertThat(constructs(issues, forward)).isEmpty();
    assertThat(issues).singleElement().satisfies(i -> {
      assertThat(i.where()).isSameAs(forward);
      assertThat(i.message()).isEqualTo("loop edge a -> c goes forward: 'a' is not reachable from 'c' by forward "
          + "edges, so there is no cycle to repeat");
    });
  }

  @Test
  void loopNodeAndLoopEdgeOverlappingIsAnIssueNamingBoth() {
    Workflow wf = load(refine(""));
    List<Edge> edges = new ArrayList<>(wf.edges());
    edges.add(loopEdge("after", "draft"));
    List<Issue> issues = new ArrayList<>();

    List<Construct> found = Constructs.find(wf.nodes(), edges, issues);

    assertThat(found).extracting(Construct::id).containsExactly("refine");
    assertThat(found.get(0).pairId()).isEqualTo("refine_exit");
    assertThat(found.get(0).inner()).containsExactly("draft", "judge");
    assertThat(found.get(0).span()).containsExactly("refine", "draft", "judge", "refine_exit");
    assertThat(issues).extracting(Issue::message).containsExactly("loop edge after -> draft [draft, judge, "
        + "refine_exit, after] overlaps loop 'refine' [draft, judge] without one containing the other; loops must "
        + "nest or be disjoint");
  }
}
