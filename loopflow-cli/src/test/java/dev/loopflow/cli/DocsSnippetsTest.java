package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The YAML in the README and in docs/*.md, checked against the examples and the engine, so that the docs cannot drift
 * from either (docs/README.md states these rules for writers):
 *
 * <ul>
 *   <li>A snippet whose first line is {@code # examples/NAME.yaml} is that example: it equals the file without the
 *       file's leading comment lines. One whose first line also says {@code abridged} is an excerpt: its lines
 *       appear in the file, in the same order ({@code # ...} marks a cut).
 *   <li>A snippet that is a whole workflow (a top-level {@code nodes:} or {@code workflow_pattern:} key) and is not
 *       abridged loads without a problem, as if it were a file of examples/ (a workflow it names by a relative
 *       path is one of the examples).
 *   <li>Such a workflow also runs to completion, every LLM call going to the mock provider, unless it needs what a
 *       test cannot give it: a shell, HTTP or MCP server, or an input without a default. Those only load.
 * </ul>
 */
class DocsSnippetsTest {
  private static final Path ROOT = Path.of("..");
  private static final Pattern FENCE = Pattern.compile("^(\\s*)```(\\w*)\\s*$");
  private static final Pattern EXAMPLE_HEADER = Pattern.compile("^#\\s*(examples/[\\w./-]+\\.ya?ml)(.*)$");
  private static final Pattern WHOLE_WORKFLOW = Pattern.compile("(?m)^(nodes|workflow_pattern):");
  /** Node fields that reach outside the test: a shell, the network, an MCP server. */
  private static final Pattern NEEDS_OUTSIDE =
      Pattern.compile("(?m)(^|[\\s{,])(bash|shell|command|http|url|mcp_servers|mcp)\\s*:|type:\\s*(http|shell)\\b");

  @TempDir
  Path dir;

  record Snippet(Path doc, int line, String lang, List<String> lines) {
    String where() {
      return ROOT.relativize(doc) + ":" + line;
    }

    String text() {
      return String.join("\n", lines) + "\n";
    }

    boolean yaml() {
      return lang.equals("yaml") || lang.equals("yml");
    }

    Matcher header() {
      return EXAMPLE_HEADER.matcher(lines.isEmpty() ? "" : lines.get(0));
    }

    boolean abridged() {
      Matcher m = header();
      return m.matches() && m.group(2).contains("abridged");
    }

    boolean wholeWorkflow() {
      return yaml() && !abridged() && WHOLE_WORKFLOW.matcher(text()).find();
    }
  }

  /** Every fenced block of the README and docs/*.md, its lines without the fence's indentation. */
  static List<Snippet> snippets() throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(ROOT.resolve("README.md"));
    try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
      files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    List<Snippet> out = new ArrayList<>();
    for (Path doc : docs) {
      List<String> lines = Files.readAllLines(doc);
      for (int i = 0; i < lines.size(); i++) {
        Matcher open = FENCE.matcher(lines.get(i));
        if (!open.matches()) {
          continue;
        }
        int indent = open.group(1).length();
        List<String> body = new ArrayList<>();
        int j = i + 1;
        for (; j < lines.size() && !FENCE.matcher(lines.get(j)).matches(); j++) {
          String l = lines.get(j);
          body.add(l.length() >= indent && l.substring(0, indent).isBlank() ? l.substring(indent) : l.strip());
        }
        out.add(new Snippet(doc, i + 1, open.group(2), body));
        i = j;
      }
    }
    return out;
  }

  @Test
  void theDocsHaveSnippetsToCheck() throws IOException {
    // Guards the checks below against a parser that finds nothing and so passes vacuously.
    assertThat(snippets().stream().filter(s -> s.header().matches())).hasSizeGreaterThanOrEqualTo(5);
    assertThat(snippets().stream().filter(Snippet::wholeWorkflow)).hasSizeGreaterThanOrEqualTo(5);
  }

  @Test
  void aSnippetHeadedWithAnExampleIsThatExample_bugTheDocsShowedCopiesThatHadDriftedFromTheFiles()
      throws IOException {
    List<String> problems = new ArrayList<>();
    for (Snippet s : snippets()) {
      Matcher m = s.header();
      if (!s.yaml() || !m.matches()) {
        continue;
      }
      Path file = ROOT.resolve(m.group(1));
      if (!Files.isRegularFile(file)) {
        problems.add(s.where() + ": names " + m.group(1) + ", which does not exist");
        continue;
      }
      List<String> example = Files.readAllLines(file).stream().map(String::stripTrailing).toList();
      List<String> shown = s.lines().subList(1, s.lines().size()).stream().map(String::stripTrailing).toList();
      if (s.abridged()) {
        int at = 0;
        for (String line : shown) {
          if (line.isBlank() || line.strip().equals("# ...")) {
            continue;
          }
          int found = example.subList(at, example.size()).indexOf(line);
          if (found < 0) {
            problems.add(s.where() + ": abridged from " + m.group(1) + ", but this line is not in it (or not in "
                + "this order): " + line.strip());
            break;
          }
          at += found + 1;
        }
      } else {
        int start = 0;
        while (start < example.size() && example.get(start).startsWith("#")) {
          start++;
        }
        String expected = String.join("\n", example.subList(start, example.size())).strip();
        if (!String.join("\n", shown).strip().equals(expected)) {
          problems.add(s.where() + ": differs from " + m.group(1) + " (without its header comment); show it whole, "
              + "or say 'abridged' and show only lines of it");
        }
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void everyWholeWorkflowInTheDocsLoadsAndRunsWhereItNeedsNothingOutside_bugTheDocsShowedWorkflowsThatDidNotLoad()
      throws IOException {
    Loopflow engine = Loopflow.create();
    List<String> problems = new ArrayList<>();
    for (Snippet s : snippets()) {
      if (!s.wholeWorkflow()) {
        continue;
      }
      Workflow wf;
      try {
        // Loaded as if it were a file of examples/, so that a workflow it names by a relative path is looked up
        // among the examples.
        wf = engine.parse(s.text(), ROOT.resolve("examples").resolve(s.doc().getFileName() + "-" + s.line() + ".yaml")
            .toString());
      } catch (WorkflowInvalidException e) {
        problems.add(s.where() + ": does not load: " + e.problems());
        continue;
      }
      boolean needsInput = wf.inputs().values().stream().anyMatch(i -> !i.hasDefault());
      if (needsInput || NEEDS_OUTSIDE.matcher(s.text()).find()) {
        continue;
      }
      Path file = dir.resolve(s.doc().getFileName() + "-" + s.line() + ".yaml");
      Files.writeString(file, s.text());
      CliTest.Run r = CliTest.cli("run", file.toString(), "--mock-llm", "--store", "memory", "--json", "--quiet");
      if (r.status() != Main.OK) {
        problems.add(s.where() + ": does not run to completion (exit " + r.status() + "): " + r.out() + r.err());
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void theDocsNameTheRunnableJarTheBuildMakes_bugTheComposeFileMountedTheJarWithoutDependencies() throws IOException {
    // The CLI's pom shades everything into loopflow-cli/target/loopflow.jar; the module's own jar beside it
    // (loopflow-cli-VERSION.jar) holds no dependencies and does not run.
    assertThat(Files.readString(ROOT.resolve("loopflow-cli/pom.xml"))).contains("<finalName>loopflow</finalName>");
    Pattern jar = Pattern.compile("loopflow-cli/target/[\\w.-]+\\.jar");
    List<String> named = new ArrayList<>();
    for (Snippet s : snippets()) {
      Matcher m = jar.matcher(s.text());
      while (m.find()) {
        named.add(s.where() + ": " + m.group());
      }
    }
    assertThat(named).isNotEmpty().allSatisfy(n -> assertThat(n).endsWith(": loopflow-cli/target/loopflow.jar"));
  }
}
