package dev.loopflow.cli;

import dev.loopflow.core.LoopBodies;
import dev.loopflow.core.model.Edge;
import dev.loopflow.core.model.LoopConfig;
import dev.loopflow.core.model.Node;
import dev.loopflow.core.model.RestartPolicy;
import dev.loopflow.core.model.Workflow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code loopflow graph} draws, built once from a workflow and rendered as Mermaid or DOT, so both formats show
 * the same picture. Every loop is drawn as a loop: its body inside a box, and a dashed edge from the box back to
 * the loop node labelled with the bound. The body is what the run repeats: the nested body of a while_loop or
 * loop_group, and for loop/exit and iterator/aggregator the nodes between the loop node and its marker
 * ({@link LoopBodies}). A loop edge is itself the dashed back edge, labelled with its condition and bound.
 *
 * <p>Node keys are ids (top level) or paths {@code loop/child} (nested bodies); box keys are {@code [loop key]}.
 * Neither can collide: node ids contain no '/' or brackets. Every text that reaches the output (labels, titles,
 * branch names and conditions, which an attacker may write) is escaped for the format, and Mermaid gets ids of
 * its own, so no id or label can be read as Mermaid syntax (a node called {@code end}, a label with {@code -->}).
 */
final class GraphScene {
  private static final String START = "__start__";
  private static final String END = "__end__";
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
    GraphScene s = new GraphScene(wf.name() == null ? "workflow" : wf.name());
    s.level(wf.nodes(), wf.edges(), topEdges(wf), "", s.root);
    boolean start = false;
    boolean end = false;
    for (SEdge e : s.edges) {
      start |= e.from().equals(START);
      end |= e.to().equals(END);
    }
    s.restartEdges(wf);
    if (start) {
      s.root.nodes.add(0, new SNode(START, "start", null, Shape.CIRCLE));
    }
    if (end) {
      s.root.nodes.add(new SNode(END, "end", null, Shape.CIRCLE));
    }
    return s;
  }

  /**
   * A restart policy's possible back edges, dashed and labelled with the bound: from each node that may request a
   * restart (restart_triggers; when unset, the nodes nothing depends on) to each node it may restart
   * (restartable_stages; when unset, the nodes that depend on nothing) upstream of it.
   */
  private void restartEdges(Workflow wf) {
    RestartPolicy p = wf.restartPolicy();
    if (p == null || !p.enabled()) {
      return;
    }
    Map<String, List<String>> down = new HashMap<>();
    java.util.Set<String> hasUpstream = new java.util.HashSet<>();
    for (Edge d : wf.dependencies()) {
      down.computeIfAbsent(d.from(), k -> new ArrayList<>()).add(d.to());
      hasUpstream.add(d.to());
    }
    List<String> ids = wf.nodes().stream().map(Node::id).toList();
    List<String> triggers = !p.restartTriggers().isEmpty() ? p.restartTriggers()
        : ids.stream().filter(id -> !down.containsKey(id)).toList();
    List<String> targets = !p.restartableStages().isEmpty() ? p.restartableStages()
        : ids.stream().filter(id -> !hasUpstream.contains(id)).toList();
    String label = "restart (max " + p.maxIterations() + " iterations)";
    for (String from : triggers) {
      for (String to : targets) {
        if (!from.equals(to) && reaches(down, to, from)) {
          edges.add(new SEdge(from, to, label, true));
        }
      }
    }
  }

  private static boolean reaches(Map<String, List<String>> down, String from, String to) {
    java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>(List.of(from));
    java.util.Set<String> seen = new java.util.HashSet<>();
    while (!todo.isEmpty()) {
      String n = todo.poll();
      if (n.equals(to)) {
        return true;
      }
      if (seen.add(n)) {
        todo.addAll(down.getOrDefault(n, List.of()));
      }
    }
    return false;
  }

  /** The declared edges as drawn (loop edges, start and end included) plus the engine's dependencies. */
  private static List<Edge> topEdges(Workflow wf) {
    List<Edge> out = new ArrayList<>(wf.edges());
    for (Edge d : wf.dependencies()) {
      if (!wf.edges().contains(d)) {
        out.add(d);
      }
    }
    return out;
  }

  /**
   * One graph level: its nodes placed in {@code container} or in the box of the innermost graph-form loop whose body
   * holds them, nested bodies drawn recursively, and the level's edges.
   */
  private void level(List<Node> nodes, List<Edge> declared, List<Edge> drawn, String prefix, Box container) {
    Map<String, List<String>> bodies = LoopBodies.of(nodes, declared);
    Map<String, Node> byId = new LinkedHashMap<>();
    nodes.forEach(n -> byId.put(n.id(), n));
    for (String loop : bodies.keySet()) {
      Node n = byId.get(loop);
      boxes.put(boxKey(prefix + loop), new Box(boxKey(prefix + loop), n.id() + " body (" + n.kind() + ", "
          + bound(n) + ")"));
    }
    for (String loop : bodies.keySet()) {
      boxOf(loop, bodies, prefix, container).boxes.add(boxes.get(boxKey(prefix + loop)));
    }
    for (Node n : nodes) {
      String key = prefix + n.id();
      Box here = boxOf(n.id(), bodies, prefix, container);
      here.nodes.add(new SNode(key, n.id(), n.kind(), n.body() instanceof Node.Router ? Shape.DIAMOND : Shape.BOX));
      if (bodies.containsKey(n.id())) {
        edges.add(new SEdge(boxKey(key), key, again(n), true));
      }
      if (n.body() instanceof Node.Loop loop && !loop.body().isEmpty()) {
        Box body = new Box(boxKey(key), n.id() + " body (" + n.kind() + ", " + bound(n) + ")");
        boxes.put(body.key, body);
        here.boxes.add(body);
        edges.add(new SEdge(key, body.key, "", false));
        level(loop.body(), List.of(), nestedEdges(loop), key + "/", body);
        edges.add(new SEdge(body.key, key, again(n), true));
      }
    }
    for (Edge e : drawn) {
      String from = e.from().equals(START) ? START : prefix + e.from();
      String to = e.to().equals(END) ? END : prefix + e.to();
      edges.add(new SEdge(from, to, label(e), e.isLoop()));
    }
  }

  /** A nested body's dependencies, as the engine schedules them. */
  private static List<Edge> nestedEdges(Node.Loop loop) {
    return loop.bodyDependencies();
  }

  /** The box of the innermost graph-form loop whose body holds {@code id}, else {@code container}. */
  private Box boxOf(String id, Map<String, List<String>> bodies, String prefix, Box container) {
    String best = null;
    for (Map.Entry<String, List<String>> b : bodies.entrySet()) {
      if (b.getValue().contains(id) && (best == null || b.getValue().size() < bodies.get(best).size())) {
        best = b.getKey();
      }
    }
    return best == null ? container : boxes.get(boxKey(prefix + best));
  }

  private static String boxKey(String loopKey) {
    return "[" + loopKey + "]";
  }

  private static String bound(Node n) {
    Node.Loop l = (Node.Loop) n.body();
    return l.config() instanceof LoopConfig.Iterate it ? "one pass per item, concurrency " + it.concurrency()
        : "max " + l.maxIterations();
  }

  /** The back edge's label. */
  private static String again(Node n) {
    Node.Loop l = (Node.Loop) n.body();
    return l.config() instanceof LoopConfig.Iterate ? "next item" : "next pass, max " + l.maxIterations();
  }

  private static String label(Edge e) {
    if (e.branch() != null) {
      return cut(e.branch());
    }
    String s = e.when() == null ? "" : e.when().source();
    if (e.isLoop()) {
      return (s.isEmpty() ? "" : cut(s) + " ") + "max " + e.maxIterations();
    }
    return cut(s);
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
