package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The terminal table (progress in table mode, as on a terminal) after real runs of every loop construct: one row
 * per node of the file, and no row left pending or running once the run is over.
 */
class ProgressTableTest {
  private static final Path EXAMPLES = Path.of("../examples");

  /** The last frame drawn: row name to status. */
  static Map<String, String> lastFrame(String screen) {
    String frame = screen.substring(screen.lastIndexOf("NODE"));
    Map<String, String> rows = new LinkedHashMap<>();
    List<String> lines = frame.lines().skip(1).map(l -> l.replace("\033[2K", "")).toList();
    for (String l : lines) {
      if (l.length() < 41 || l.startsWith(" ") || l.startsWith("[mock")) {
        continue;
      }
      String name = l.substring(0, 24).strip();
      assertThat(rows).as("row %s drawn twice in:%n%s", name, frame).doesNotContainKey(name);
      rows.put(name, l.substring(25, 41).strip());
    }
    return rows;
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      loop-self-refine.yaml          | refine, draft, critique, merge, refine_exit, final
      loop-iterator.yaml             | each_word, measure, label, collect, report
      loop-while-counter.yaml        | count_loop, count_loop.increment
      loop-group-until-bash.yaml     | workdir, count_up, count_up.bump, cleanup
      loop-coder-reviewer.yaml       | coder, reviewer, reviewer->coder
      loop-group-fix-until-pass.yaml | fix_until_pass, fix_until_pass.implement, fix_until_pass.test, fix_until_pass.review
      """)
  void loopBodyRowsEndCompletedAndAppearOnce_bugBodyRowsStayedPendingAndAppearedTwice(String example,
      String expectedRows) throws Exception {
    Loopflow engine = Loopflow.create();
    Workflow wf = engine.load(EXAMPLES.resolve(example));
    StringWriter screen = new StringWriter();
    Progress.Live live = new Progress.Live(new PrintWriter(screen), wf);
    RunOptions.Builder opts = RunOptions.builder().listener(live).option("llm.mock", true);
    if (example.equals("loop-coder-reviewer.yaml")) {
      opts.option("llm.mock_script", EXAMPLES.resolve("loop-coder-reviewer.mock.json").toAbsolutePath().toString())
          .input("task", "add two numbers");
    }
    RunResult r = engine.run(wf, opts.build());
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);

    Map<String, String> rows = lastFrame(screen.toString());
    List<String> expected = new ArrayList<>();
    for (String s : expectedRows.split(",")) {
      expected.add(s.strip());
    }
    assertThat(rows.keySet()).as(screen.toString()).containsAll(expected);
    rows.forEach((name, status) -> assertThat(status).as("row %s", name).isNotIn("pending", "running")
        .isNotBlank());
    // Body rows of graph-form loops are the nodes' own rows, not a second "loop.node" row.
    assertThat(rows.keySet()).noneMatch(k -> k.startsWith("refine.") || k.startsWith("each_word.")
        || k.startsWith("reviewer->coder."));
  }

  @ParameterizedTest(name = "concurrency {0}")
  @CsvSource({"1", "2", "3"})
  void aBodyRowIsRunningWhileAnyPassRuns(int concurrency) {
    Loopflow engine = Loopflow.create();
    Workflow wf = engine.parse("""
        nodes:
          - id: each
            type: iterator
            items: "{{ [1, 2, 3, 4] }}"
            concurrency: %d
          - id: work
            bash: echo {{ loop.item }}
          - id: gather
            type: aggregator
        edges:
          - {from: each, to: work}
          - {from: work, to: gather}
        """.formatted(concurrency), "iter.yaml");
    StringWriter screen = new StringWriter();
    Progress.Live live = new Progress.Live(new PrintWriter(screen), wf);
    RunResult r = engine.run(wf, RunOptions.builder().listener(live).build());
    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    Map<String, String> rows = lastFrame(screen.toString());
    assertThat(rows).containsEntry("work", "completed").containsOnlyKeys("each", "work", "gather");
  }
}
