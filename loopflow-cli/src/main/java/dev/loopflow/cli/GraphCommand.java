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
    for (Node n : wf.nodes()) {
      mermaidBody(sb, n, "", "  ");
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

  /**
   * A loop with a nested body (while_loop, loop_group) is drawn as a subgraph entered from the loop node, with a
   * dashed edge back to the loop node labelled with its bound: loops are drawn as loops.
   */
  private static void mermaidBody(StringBuilder sb, Node n, String prefix, String indent) {
    if (!(n.body() instanceof Node.Loop loop) || loop.body().isEmpty()) {
      return;
    }
    String id = prefix + n.id();
    sb.append(indent).append("subgraph ").append(id).append("__body[\"").append(n.id()).append(" body (")
        .append(n.kind()).append(", max ").append(loop.maxIterations()).append(")\"]\n");
    String p = id + "__";
    for (Node c : loop.body()) {
      sb.append(indent).append("  ").append(p).append(c.id()).append("[\"").append(c.id()).append("<br/><i>")
          .append(c.kind()).append("</i>\"]\n");
      mermaidBody(sb, c, p, indent + "  ");
    }
    boolean declared = loop.body().stream().anyMatch(c -> !c.dependsOn().isEmpty());
    for (int i = 0; i < loop.body().size(); i++) {
      Node c = loop.body().get(i);
      for (String d : c.dependsOn()) {
        sb.append(indent).append("  ").append(p).append(d).append(" --> ").append(p).append(c.id()).append('\n');
      }
      if (!declared && i > 0 && n.kind().equals("while_loop")) {
        sb.append(indent).append("  ").append(p).append(loop.body().get(i - 1).id()).append(" --> ").append(p)
            .append(c.id()).append('\n');
      }
    }
    sb.append(indent).append("end\n");
    sb.append(indent).append(id).append(" --> ").append(id).append("__body\n");
    sb.append(indent).append(id).append("__body -.->|\"next pass, max ").append(loop.maxIterations())
        .append("\"| ").append(id).append('\n');
  }

  static String dot(Workflow wf) {
    StringBuilder sb = new StringBuilder("digraph \"" + wf.name() + "\" {\n  rankdir=TB;\n  node [shape=box];\n");
    for (Node n : wf.nodes()) {
      sb.append("  \"").append(n.id()).append("\" [label=\"").append(n.id()).append("\\n(").append(n.kind())
          .append(")\"").append(n.body() instanceof Node.Router ? ", shape=diamond" : "").append("];\n");
    }
    for (Node n : wf.nodes()) {
      dotBody(sb, n, "");
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

  private static void dotBody(StringBuilder sb, Node n, String prefix) {
    if (!(n.body() instanceof Node.Loop loop) || loop.body().isEmpty()) {
      return;
    }
    String id = prefix + n.id();
    String p = id + "/";
    sb.append("  subgraph \"cluster_").append(id).append("\" {\n    label=\"").append(n.id()).append(" body (")
        .append(n.kind()).append(", max ").append(loop.maxIterations()).append(")\";\n");
    for (Node c : loop.body()) {
      sb.append("    \"").append(p).append(c.id()).append("\" [label=\"").append(c.id()).append("\\n(")
          .append(c.kind()).append(")\"];\n");
    }
    sb.append("  }\n");
    for (Node c : loop.body()) {
      dotBody(sb, c, p);
      for (String d : c.dependsOn()) {
        sb.append("  \"").append(p).append(d).append("\" -> \"").append(p).append(c.id()).append("\";\n");
      }
    }
    if (n.kind().equals("while_loop") && loop.body().stream().allMatch(c -> c.dependsOn().isEmpty())) {
      for (int i = 1; i < loop.body().size(); i++) {
        sb.append("  \"").append(p).append(loop.body().get(i - 1).id()).append("\" -> \"").append(p)
            .append(loop.body().get(i).id()).append("\";\n");
      }
    }
    String first = p + loop.body().get(0).id();
    String last = p + loop.body().get(loop.body().size() - 1).id();
    sb.append("  \"").append(id).append("\" -> \"").append(first).append("\";\n");
    sb.append("  \"").append(last).append("\" -> \"").append(id).append("\" [style=dashed, constraint=false, "
        + "label=\"next pass, max ").append(loop.maxIterations()).append("\"];\n");
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
