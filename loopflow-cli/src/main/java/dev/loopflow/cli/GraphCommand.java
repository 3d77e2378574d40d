package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.Workflow;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "graph", mixinStandardHelpOptions = true,
    description = "Prints a workflow's graph as Mermaid or Graphviz DOT.",
    footer = {"", "Example:", "  loopflow graph examples/router.yaml --format dot | dot -Tpng > graph.png"})
final class GraphCommand implements Callable<Integer> {
  enum Format { mermaid, dot }

  @Parameters(index = "0", paramLabel = "FILE", description = "Workflow file.")
  Path file;

  @Option(names = "--format", defaultValue = "mermaid", description = "mermaid or dot (default: ${DEFAULT-VALUE}).")
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
    spec.commandLine().getOut().print(format == Format.mermaid ? mermaid(wf) : dot(wf));
    spec.commandLine().getOut().flush();
    return Main.OK;
  }

  static String mermaid(Workflow wf) {
    StringBuilder sb = new StringBuilder("flowchart TD\n");
    for (Node n : wf.nodes()) {
      String shape = n.body() instanceof Node.Router ? "{\"%s\"}" : "[\"%s\"]";
      sb.append("  ").append(n.id()).append(String.format(shape, n.id() + "<br/><i>" + n.kind() + "</i>"))
          .append('\n');
    }
    for (Edge e : edges(wf)) {
      String label = label(e);
      String from = e.from().equals("__start__") ? "__start__((start))" : e.from();
      String to = e.to().equals("__end__") ? "__end__((end))" : e.to();
      String arrow = e.isLoop() ? " -.->" : " -->";
      sb.append("  ").append(from).append(arrow).append(label.isEmpty() ? " " : "|" + esc(label) + "| ")
          .append(to).append('\n');
    }
    return sb.toString();
  }

  static String dot(Workflow wf) {
    StringBuilder sb = new StringBuilder("digraph \"" + wf.name() + "\" {\n  rankdir=TB;\n  node [shape=box];\n");
    for (Node n : wf.nodes()) {
      sb.append("  \"").append(n.id()).append("\" [label=\"").append(n.id()).append("\\n(").append(n.kind())
          .append(")\"").append(n.body() instanceof Node.Router ? ", shape=diamond" : "").append("];\n");
    }
    for (Edge e : edges(wf)) {
      String label = label(e);
      sb.append("  \"").append(e.from()).append("\" -> \"").append(e.to()).append('"');
      if (!label.isEmpty() || e.isLoop()) {
        sb.append(" [").append(label.isEmpty() ? "" : "label=\"" + label.replace("\"", "\\\"") + "\"")
            .append(e.isLoop() ? (label.isEmpty() ? "" : ", ") + "style=dashed, constraint=false" : "").append(']');
      }
      sb.append(";\n");
    }
    return sb.append("}\n").toString();
  }

  /** Declared edges plus depends_on, or the listed order when the file declares neither. */
  static java.util.List<Edge> edges(Workflow wf) {
    java.util.List<Edge> out = new java.util.ArrayList<>(wf.edges());
    for (Node n : wf.nodes()) {
      for (String d : n.dependsOn()) {
        out.add(Edge.forward(d, n.id()));
      }
    }
    if (out.isEmpty()) {
      for (int i = 1; i < wf.nodes().size(); i++) {
        out.add(Edge.forward(wf.nodes().get(i - 1).id(), wf.nodes().get(i).id()));
      }
    }
    return out;
  }

  private static String label(Edge e) {
    if (e.branch() != null) {
      return e.branch();
    }
    String s = e.when() == null ? "" : e.when().source();
    if (e.isLoop()) {
      s = (s.isEmpty() ? "" : s + " ") + "max " + e.maxIterations();
    }
    return s.length() > 40 ? s.substring(0, 37) + "..." : s;
  }

  private static String esc(String s) {
    return s.replace("\"", "'").replace("|", "/");
  }
}
