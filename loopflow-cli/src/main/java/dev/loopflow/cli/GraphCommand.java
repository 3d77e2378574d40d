package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.graph.WorkflowGraph;
import dev.loopflow.core.model.Workflow;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "graph", mixinStandardHelpOptions = true,
    description = "Prints a workflow's graph as Mermaid, Graphviz DOT or JSON; every loop is drawn as a loop: its "
        + "body in a box and a dashed edge back labelled with its bound.",
    footer = {"", "Example:", "  loopflow graph examples/router.yaml --format dot | dot -Tpng > graph.png"})
final class GraphCommand implements Callable<Integer> {
  enum Format { mermaid, dot, json }

  @Parameters(index = "0", paramLabel = "FILE", description = "Workflow file.")
  Path file;

  @Option(names = "--format", defaultValue = "mermaid", description = "mermaid, dot or json (the graph's nodes, loop bodies, edges and "
      + "match paths, as the web UI reads them; default: ${DEFAULT-VALUE}).")
  Format format;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    Workflow wf = Support.load(Loopflow.create(), file, spec.commandLine().getErr());
    if (wf == null) {
      spec.commandLine().getErr().flush();
      return Main.USAGE;
    }
    spec.commandLine().getOut().print(switch (format) {
      case mermaid -> mermaid(wf);
      case dot -> dot(wf);
      case json -> json(wf);
    });
    spec.commandLine().getOut().flush();
    return Main.OK;
  }

  static String mermaid(Workflow wf) {
    return GraphScene.of(wf).mermaid();
  }

  static String dot(Workflow wf) {
    return GraphScene.of(wf).dot();
  }

  static String json(Workflow wf) {
    try {
      return Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(Loopflow.graph(wf).toJson())
          + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("the graph of " + wf + " cannot be written as JSON", e);
    }
  }
}
