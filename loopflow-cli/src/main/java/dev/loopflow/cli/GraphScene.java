package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.graph.GraphContainer;
import dev.loopflow.core.graph.GraphEdge;
import dev.loopflow.core.graph.GraphNode;
import dev.loopflow.core.graph.WorkflowGraph;
import dev.loopflow.core.model.Workflow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code loopflow graph} draws: the workflow's {@link WorkflowGraph}, laid out as nested boxes and rendered as
 * Mermaid or DOT, so both formats (and the web UI) show the same picture. Every loop is drawn as a loop: its body
 * inside a box, and a dashed edge from the box back to the loop node labelled with the bound; a loop edge is itself
 * the dashed back edge, labelled with its condition and bound, so its region gets no box of its own. The steps a
 * loop_group takes between passes (its until command, an interactive group's gate) are part of the loop's box
 * title's meaning and are not drawn.
 *
 * <p>Every text that reaches the output (labels, titles, branch names and conditions, which an attacker may write)
 * is escaped for the format here, and Mermaid gets ids of its own, so no id or label can be read as Mermaid syntax
 * (a node called {@code end}, a label with {@code -->}).
 */
final class GraphScene {
  private static final int LABEL_MAX = 40;

  enum Shape { BOX, DIAMOND, CIRCLE }

  record SNode(String key, String title, String kind, Shape shape) {}

  /** {@code from} and {@code to} are node or box keys. */
  record SEdge(String from, String to, String label, boolean dashed) {}

  static final class Box {
    final String key;
    final String title;
    final List<SNode> nodes = new ArrayList<>();
    final List<Box> boxes = new ArrayList<>();

    Box(String key, String title) {
      this.key = key;
      this.title = title;
    }

    /** The first node drawn inside, depth first (DOT attaches edges to a box through one of its nodes). */
    SNode first() {
      if (!nodes.isEmpty()) {
        return nodes.get(0);
      }
      for (Box b : boxes) {
        SNode n = b.first();
        if (n != null) {
          return n;
        }
      }
      return null;
    }
  }

  private final String name;
  private final Box root = new Box(null, null);
  private final Map<String, Box> boxes = new HashMap<>();
  private final List<SEdge> edges = new ArrayList<>();

  private GraphScene(String name) {
    this.name = name;
  }

  static GraphScene of(Workflow wf) {
    return of(Loopflow.graph(wf));
  }

  static GraphScene of(WorkflowGraph g) {
    GraphScene s = new GraphScene(g.workflow() == null ? "workflow" : g.workflow());
    Map<String, GraphContainer> containers = new HashMap<>();
    for (GraphContainer c : g.containers()) {
      containers.put(c.key(), c);
      if (drawn(c)) {
        s.boxes.put(c.key(), new Box(c.key(), c.title()));
      }
    }
    for (GraphContainer c : g.containers()) {
      if (drawn(c)) {
        s.boxIn(c.parent(), containers).boxes.add(s.boxes.get(c.key()));
      }
    }
    for (GraphNode n : g.nodes()) {
      Shape shape = switch (n.role()) {
        case START, END -> Shape.CIRCLE;
        case NODE -> "router".equals(n.kind()) ? Shape.DIAMOND : Shape.BOX;
        case UNTIL_COMMAND, GATE -> null;
      };
      if (shape != null) {
        s.boxIn(n.parent(), containers).nodes.add(new SNode(n.key(), n.title(), n.kind(), shape));
      }
    }
    for (GraphEdge e : g.edges()) {
      s.edges.add(new SEdge(e.from(), e.to(), s.label(e), e.back()));
    }
    return s;
  }

  /** A loop edge's region has no box: the loop edge is drawn as its back edge. */
  private static boolean drawn(GraphContainer c) {
    return !c.construct().equals(GraphContainer.LOOP_EDGE);
  }

  /** The box drawn for container {@code key}: the nearest enclosing one that is drawn, else the top. */
  private Box boxIn(String key, Map<String, GraphContainer> containers) {
    while (key != null && !boxes.containsKey(key)) {
      key = containers.get(key).parent();
    }
    return key == null ? root : boxes.get(key);
  }

  /** An edge's label as drawn: the graph's text cut to one short line, with the bound where there is one. */
  private String label(GraphEdge e) {
    String text = e.label() == null ? "" : e.label();
    return switch (e.kind()) {
      case NEXT, BRANCH -> cut(text);
      case LOOP_BACK -> boxes.containsKey(e.from())
          ? e.max() == null ? text : text + ", max " + e.max()
          : (text.isEmpty() ? "" : cut(text) + " ") + "max " + e.max();
      case RESTART -> "restart (max " + e.max() + " iterations)";
    };
  }

  /** At most {@link #LABEL_MAX} characters (never splitting a surrogate pair), on one line. */
  private static String cut(String s) {
    String one = s.replaceAll("\\s+", " ").strip();
    if (one.codePointCount(0, one.length()) <= LABEL_MAX) {
      return one;
    }
    return one.substring(0, one.offsetByCodePoints(0, LABEL_MAX - 3)) + "...";
  }

  // ---------------------------------------------------------------------------------------------------------
  // Mermaid

  String mermaid() {
    Map<String, String> ids = new HashMap<>();
    StringBuilder sb = new StringBuilder("flowchart TD\n");
    mermaidBox(sb, root, "  ", ids);
    for (SEdge e : edges) {
      sb.append("  ").append(mid(e.from(), ids)).append(e.dashed() ? " -.->" : " -->");
      if (!e.label().isEmpty()) {
        sb.append("|\"").append(mm(e.label())).append("\"|");
      }
      sb.append(' ').append(mid(e.to(), ids)).append('\n');
    }
    return sb.toString();
  }

  private void mermaidBox(StringBuilder sb, Box box, String indent, Map<String, String> ids) {
    for (SNode n : box.nodes) {
      String text = n.kind() == null ? mm(n.title()) : mm(n.title()) + "<br/><i>" + mm(n.kind()) + "</i>";
      String[] shape = switch (n.shape()) {
        case BOX -> new String[] {"[\"", "\"]"};
        case DIAMOND -> new String[] {"{\"", "\"}"};
        case CIRCLE -> new String[] {"((\"", "\"))"};
      };
      sb.append(indent).append(mid(n.key(), ids)).append(shape[0]).append(text).append(shape[1]).append('\n');
    }
    for (Box b : box.boxes) {
      sb.append(indent).append("subgraph ").append(mid(b.key, ids)).append("[\"").append(mm(b.title)).append("\"]\n");
      mermaidBox(sb, b, indent + "  ", ids);
      sb.append(indent).append("end\n");
    }
  }

  /**
   * A Mermaid id for a node or box key: letters, digits and '_' only, prefixed so that no id is a Mermaid keyword
   * ({@code end}, {@code subgraph}, ...) or starts like an edge ({@code o}, {@code x}); unique per diagram.
   */
  private static String mid(String key, Map<String, String> ids) {
    return ids.computeIfAbsent(key, k -> {
      boolean box = k.startsWith("[");
      String base = (box ? "s_" : "n_") + (box ? k.substring(1, k.length() - 1) : k).replaceAll("[^A-Za-z0-9_]", "_");
      String id = base;
      for (int i = 2; ids.containsValue(id); i++) {
        id = base + "_" + i;
      }
      return id;
    });
  }

  /**
   * Text inside a quoted Mermaid label: the quote, '#' (which starts an entity), HTML's {@code & < >}, the backtick
   * (which would start a markdown string) and '|' (the edge-label delimiter) become Mermaid entity codes
   * ({@code #34;}), which Mermaid shows as the character; line breaks become spaces.
   */
  static String mm(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    s.codePoints().forEach(c -> {
      switch (c) {
        case '"', '#', '&', '<', '>', '`', '|' ->
            sb.append('#').append(c).append(';');
        default -> {
          if (Character.isISOControl(c) || Character.getType(c) == Character.LINE_SEPARATOR
              || Character.getType(c) == Character.PARAGRAPH_SEPARATOR) {
            sb.append(' ');
          } else {
            sb.appendCodePoint(c);
          }
        }
      }
    });
    return sb.toString();
  }

  // ---------------------------------------------------------------------------------------------------------
  // DOT

  String dot() {
    StringBuilder sb = new StringBuilder("digraph ").append(dq(name)).append(" {\n")
        .append("  rankdir=TB;\n  compound=true;\n  node [shape=box];\n");
    dotBox(sb, root, "  ");
    for (SEdge e : edges) {
      Box fromBox = boxes.get(e.from());
      Box toBox = boxes.get(e.to());
      String from = fromBox == null ? e.from() : fromBox.first().key();
      String to = toBox == null ? e.to() : toBox.first().key();
      List<String> attrs = new ArrayList<>();
      if (!e.label().isEmpty()) {
        attrs.add("label=" + dq(e.label()));
      }
      if (fromBox != null) {
        attrs.add("ltail=" + dq("cluster_" + e.from()));
      }
      if (toBox != null) {
        attrs.add("lhead=" + dq("cluster_" + e.to()));
      }
      if (e.dashed()) {
        attrs.add("style=dashed");
        attrs.add("constraint=false");
      }
      sb.append("  ").append(dq(from)).append(" -> ").append(dq(to));
      if (!attrs.isEmpty()) {
        sb.append(" [").append(String.join(", ", attrs)).append(']');
      }
      sb.append(";\n");
    }
    return sb.append("}\n").toString();
  }

  private void dotBox(StringBuilder sb, Box box, String indent) {
    for (SNode n : box.nodes) {
      sb.append(indent).append(dq(n.key())).append(" [label=")
          .append(dq(n.kind() == null ? n.title() : n.title() + "\n(" + n.kind() + ")"))
          .append(n.shape() == Shape.DIAMOND ? ", shape=diamond" : n.shape() == Shape.CIRCLE ? ", shape=circle" : "")
          .append("];\n");
    }
    for (Box b : box.boxes) {
      sb.append(indent).append("subgraph ").append(dq("cluster_" + b.key)).append(" {\n").append(indent)
          .append("  label=").append(dq(b.title)).append(";\n").append(indent).append("  style=dashed;\n");
      dotBox(sb, b, indent + "  ");
      sb.append(indent).append("}\n");
    }
  }

  /** A DOT quoted string: backslash and quote escaped, a line break as DOT's centred line break. */
  static String dq(String s) {
    StringBuilder sb = new StringBuilder("\"");
    s.codePoints().forEach(c -> {
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        default -> {
          if (Character.isISOControl(c)) {
            sb.append(' ');
          } else {
            sb.appendCodePoint(c);
          }
        }
      }
    });
    return sb.append('"').toString();
  }
}
