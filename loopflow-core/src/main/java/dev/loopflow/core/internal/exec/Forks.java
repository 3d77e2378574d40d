package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition.LoopFrame;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.run.ForkEdits;
import dev.loopflow.core.run.ForkPlan;
import dev.loopflow.core.run.ForkPoint;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Forks and their lineage. A fork's journal holds only what it executed itself; what it reuses stays in its origin's
 * journal and is read from there, by reference: the first {@code rows} node executions and the events up to
 * {@code event_seq} of the origin's own lineage, which the fork's record names (run option
 * {@link RunOptions#FORKED_FROM}). A fork of a fork reads through both.
 *
 * <p>Where a fork cuts its origin's journal: at the first execution journaled inside the pass it starts at (or
 * later passes of that loop, or the loop's own completion) for a pass point; at the node's last execution for a node
 * point. Every execution journaled before the cut is reused, whatever branch it belongs to; every one from it on
 * executes again. Events are cut the same way.
 *
 * <p>What must stay true: the cut of a fork never moves once its record is written (it is counted in rows and event
 * sequence numbers, and journals only grow), so a resumed fork replays exactly what the fork first reused.
 */
final class Forks {
  /** Forks of forks nest at most this deep: reading a lineage follows one origin per level. */
  static final int MAX_DEPTH = 64;

  private Forks() {}

  /** What a fork's record says of its origin. */
  record Origin(String runId, String at, int rows, long eventSeq, ForkEdits edits) {
    /** The origin {@code r} names; null when {@code r} is no fork. */
    static Origin of(RunRecord r) {
      if (!(r.options().get(RunOptions.FORKED_FROM) instanceof Map<?, ?> m)) {
        return null;
      }
      return new Origin(String.valueOf(m.get("run_id")), String.valueOf(m.get("at")),
          m.get("rows") instanceof Number n ? n.intValue() : 0,
          m.get("event_seq") instanceof Number n ? n.longValue() : 0, ForkEdits.fromJson(m.get("edits")));
    }

    Map<String, Object> toJson(Usage reused) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("run_id", runId);
      m.put("at", at);
      m.put("rows", rows);
      m.put("event_seq", eventSeq);
      m.put("reused_usage", usageJson(reused));
      if (!edits.isEmpty()) {
        m.put("edits", edits.toJson());
      }
      return m;
    }
  }

  static Map<String, Object> usageJson(Usage u) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("llm_calls", u.llmCalls());
    m.put("input_tokens", u.inputTokens());
    m.put("output_tokens", u.outputTokens());
    m.put("cost_usd", u.costUsd());
    return m;
  }

  /** The node executions of run {@code r} as it reads with its lineage: what it reuses, then its own. */
  static List<NodeExecution> rows(RunStore store, RunRecord r) {
    return rows(store, r, 0);
  }

  private static List<NodeExecution> rows(RunStore store, RunRecord r, int depth) {
    Origin o = Origin.of(r);
    List<NodeExecution> own = store.nodeExecutions(r.runId());
    if (o == null) {
      return own;
    }
    List<NodeExecution> before = rows(store, origin(store, r, o, depth), depth + 1);
    List<NodeExecution> all = new ArrayList<>(before.subList(0, Math.min(o.rows(), before.size())));
    all.addAll(own);
    return all;
  }

  /** The events of run {@code r} as it reads with its lineage, without the origins' own run-level events. */
  static List<Event> events(RunStore store, RunRecord r) {
    return events(store, r, 0);
  }

  private static List<Event> events(RunStore store, RunRecord r, int depth) {
    Origin o = Origin.of(r);
    List<Event> own = store.events(r.runId());
    if (o == null) {
      return own;
    }
    List<Event> all = new ArrayList<>();
    for (Event e : events(store, origin(store, r, o, depth), depth + 1)) {
      if (e.seq() <= o.eventSeq() && !runLevel(e)) {
        all.add(e);
      }
    }
    all.addAll(own);
    return all;
  }

  private static RunRecord origin(RunStore store, RunRecord fork, Origin o, int depth) {
    if (depth >= MAX_DEPTH) {
      throw new LoopflowException(ErrorCode.FORK_REFUSED, "run '" + fork.runId() + "' is a fork nested more than "
          + MAX_DEPTH + " deep", null);
    }
    return store.findRun(o.runId()).orElseThrow(() -> new LoopflowException(ErrorCode.FORK_REFUSED, "run '"
        + fork.runId() + "' is a fork of run '" + o.runId() + "', which is no longer in the store", null));
  }

  private static boolean runLevel(Event e) {
    return e instanceof Event.RunStarted || e instanceof Event.RunResumed || e instanceof Event.RunPaused
        || e instanceof Event.RunFinished;
  }

  /**
   * Where a fork at {@code at} cuts a journal: the rows and events before it are reused. {@code nodeAt}: for a node
   * point, the position of the execution the fork starts at.
   */
  record Cut(int rows, long eventSeq, NodePosition nodeAt, List<NodeExecution> reused, List<NodeExecution> after,
      List<Event> reusedEvents) {}

  /** Where {@code at} cuts {@code rows} and {@code events} of run {@code runId}; refuses a point not in them. */
  static Cut cut(String runId, List<NodeExecution> rows, List<Event> events, ForkPoint at) {
    int row;
    NodePosition nodeAt = null;
    int eventIndex;
    switch (at) {
      case ForkPoint.Pass p -> {
        checkPassRan(runId, rows, events, p);
        row = firstIndex(rows, r -> atOrAfter(r.position(), p));
        eventIndex = firstEvent(events, e -> eventAtOrAfter(e, p));
      }
      case ForkPoint.BeforeNode n -> {
        row = -1;
        for (int i = rows.size() - 1; i >= 0; i--) {
          if (rows.get(i).position().nodeId().equals(n.nodeId())) {
            row = i;
            break;
          }
        }
        if (row < 0) {
          throw new LoopflowException(ErrorCode.FORK_REFUSED, "run '" + runId + "' has no execution of node '"
              + n.nodeId() + "' to fork before", null);
        }
        NodePosition pos = rows.get(row).position();
        nodeAt = pos;
        eventIndex = firstEvent(events, e -> pos.equals(Events.position(e)));
      }
    }
    if (row < 0) {
      row = rows.size();
    }
    long eventSeq = eventIndex <= 0 ? 0 : events.get(eventIndex - 1).seq();
    List<Event> reusedEvents = new ArrayList<>(events.subList(0, Math.max(eventIndex, 0)));
    return new Cut(row, eventSeq, nodeAt, List.copyOf(rows.subList(0, row)), List.copyOf(rows.subList(row,
        rows.size())), reusedEvents);
  }

  /** {@code reused} with the outputs {@code edits} set: each on the named node's last execution. */
  static List<NodeExecution> withOutputs(String runId, List<NodeExecution> reused, ForkEdits edits) {
    if (edits.outputs().isEmpty()) {
      return reused;
    }
    List<NodeExecution> out = new ArrayList<>(reused);
    for (Map.Entry<String, Object> e : edits.outputs().entrySet()) {
      int last = -1;
      for (int i = out.size() - 1; i >= 0; i--) {
        NodeExecution r = out.get(i);
        if (r.position().nodeId().equals(e.getKey()) && r.status() == NodeStatus.COMPLETED) {
          last = i;
          break;
        }
      }
      if (last < 0) {
        throw new LoopflowException(ErrorCode.FORK_REFUSED, "node '" + e.getKey() + "' did not complete before "
            + "the fork point in run '" + runId + "', so its output cannot be set", null);
      }
      NodeExecution r = out.get(last);
      Map<String, Object> result = new LinkedHashMap<>(r.result() == null ? Map.of() : r.result());
      result.put("output", e.getValue());
      out.set(last, new NodeExecution(r.runId(), r.position(), r.kind(), r.status(), r.attempts(), r.startedAt(),
          r.finishedAt(), r.input(), result, r.usage(), r.errorCode(), r.errorMessage(), r.statePatch(),
          r.sessions()));
    }
    return out;
  }

  /** What a fork at {@code at} of run {@code origin} would reuse and execute; calls nothing. */
  static ForkPlan plan(String origin, ForkPoint at, Cut cut, List<Event> events) {
    List<String> reused = new ArrayList<>();
    cut.reused().forEach(r -> reused.add(r.position().path()));
    Usage reusedUsage = new RunContext.Replay(cut.reused(), null, null, cut.reusedEvents()).total();
    Set<String> executes = new LinkedHashSet<>();
    Integer maxPasses = null;
    Usage outside = Usage.NONE;
    if (at instanceof ForkPoint.Pass p) {
      int bound = 0;
      for (Event e : events) {
        if (e instanceof Event.LoopStarted s && s.node().loops().equals(p.enclosing())
            && s.node().nodeId().equals(p.loopId())) {
          bound = s.max();
        }
      }
      maxPasses = Math.max(bound - p.pass() + 1, 0);
      executes.add("loop '" + p.loopId() + "' from pass " + p.pass() + " (at most " + maxPasses + " pass"
          + (maxPasses == 1 ? ")" : "es)"));
      Map<Integer, Usage> perPass = new LinkedHashMap<>();
      int d = p.enclosing().size();
      for (NodeExecution r : concat(cut.reused(), cut.after())) {
        List<LoopFrame> loops = r.position().loops();
        if (loops.size() > d && loops.subList(0, d).equals(p.enclosing()) && loops.get(d).loopId().equals(p.loopId())
            && r.usage() != null) {
          perPass.merge(loops.get(d).iteration(), r.usage(), Usage::plus);
        }
      }
      for (NodeExecution r : cut.after()) {
        NodePosition pos = r.position();
        boolean loopsOwnRow = pos.loops().equals(p.enclosing()) && pos.nodeId().equals(p.loopId());
        if (!loopsOwnRow && !atOrAfter(pos, p)) {
          executes.add(pos.path());
          if (r.usage() != null) {
            outside = outside.plus(r.usage());
          }
        }
      }
      int calls = 0;
      double dearest = 0;
      // A pass whose calls had no price makes the bound unknown; a pass without calls costs nothing.
      boolean priced = true;
      for (Usage u : perPass.values()) {
        calls = Math.max(calls, u.llmCalls());
        if (u.costUsd() != null) {
          dearest = Math.max(dearest, u.costUsd());
        } else if (u.llmCalls() > 0) {
          priced = false;
        }
      }
      if (outside.costUsd() == null && outside.llmCalls() > 0) {
        priced = false;
      }
      int maxCalls = maxPasses * calls + outside.llmCalls();
      Double maxCost = priced ? maxPasses * dearest + (outside.costUsd() == null ? 0 : outside.costUsd()) : null;
      return new ForkPlan(origin, at.text(), reused, reusedUsage, List.copyOf(executes), maxPasses, maxCalls,
          maxCost);
    }
    for (NodeExecution r : cut.after()) {
      executes.add(r.position().path());
      if (r.usage() != null) {
        outside = outside.plus(r.usage());
      }
    }
    // A node point has no loop bound to go by: the origin's own spending from the point on is the estimate.
    Double cost = outside.costUsd() != null ? outside.costUsd() : outside.llmCalls() > 0 ? null : Double.valueOf(0);
    return new ForkPlan(origin, at.text(), reused, reusedUsage, List.copyOf(executes), null, outside.llmCalls(),
        cost);
  }

  private static <T> List<T> concat(List<T> a, List<T> b) {
    List<T> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  /** Whether an execution at {@code pos} is inside the pass the fork starts at, a later pass, or the loop's end. */
  static boolean atOrAfter(NodePosition pos, ForkPoint.Pass p) {
    List<LoopFrame> enclosing = p.enclosing();
    List<LoopFrame> loops = pos.loops();
    int d = enclosing.size();
    if (loops.size() > d && loops.subList(0, d).equals(enclosing)) {
      LoopFrame f = loops.get(d);
      if (f.loopId().equals(p.loopId()) && f.iteration() >= p.pass()) {
        return true;
      }
    }
    return loops.equals(enclosing) && pos.nodeId().equals(p.loopId());
  }

  private static boolean eventAtOrAfter(Event e, ForkPoint.Pass p) {
    NodePosition pos = Events.position(e);
    if (pos == null) {
      return e instanceof Event.RunFinished;
    }
    if (pos.loops().equals(p.enclosing()) && pos.nodeId().equals(p.loopId())) {
      return switch (e) {
        case Event.LoopIteration i -> i.iteration() >= p.pass();
        case Event.LoopIterate b -> b.iteration() >= p.pass();
        case Event.LoopCompleted c -> true;
        case Event.NodeStarted s -> false;
        case Event.LoopStarted s -> false;
        default -> true;
      };
    }
    return atOrAfter(pos, p);
  }


  /** Refuses a pass the origin never started, naming the passes it has (and where a nested loop's passes are). */
  private static void checkPassRan(String runId, List<NodeExecution> rows, List<Event> events, ForkPoint.Pass p) {
    int passes = 0;
    Set<String> elsewhere = new LinkedHashSet<>();
    List<NodePosition> positions = new ArrayList<>();
    rows.forEach(r -> positions.add(r.position()));
    for (Event e : events) {
      NodePosition pos = Events.position(e);
      if (pos != null) {
        positions.add(pos);
      }
      if (e instanceof Event.LoopIteration i && i.node().loops().equals(p.enclosing())
          && i.node().nodeId().equals(p.loopId())) {
        passes = Math.max(passes, i.iteration());
      }
    }
    int d = p.enclosing().size();
    for (NodePosition pos : positions) {
      List<LoopFrame> loops = pos.loops();
      if (loops.size() > d && loops.subList(0, d).equals(p.enclosing()) && loops.get(d).loopId().equals(p.loopId())) {
        passes = Math.max(passes, loops.get(d).iteration());
      }
      for (int i = 0; i < loops.size(); i++) {
        if (loops.get(i).loopId().equals(p.loopId()) && i != d && elsewhere.size() < 5) {
          StringBuilder sb = new StringBuilder();
          for (LoopFrame f : loops.subList(0, i)) {
            sb.append(f.loopId()).append(':').append(f.iteration()).append('/');
          }
          elsewhere.add(sb.append(p.loopId()).append(':').append(p.pass()).toString());
        }
      }
    }
    if (p.pass() <= passes) {
      return;
    }
    String where = p.enclosing().isEmpty() ? "" : " inside " + new ForkPoint.Pass(p.enclosing()).text();
    String msg = passes == 0
        ? "run '" + runId + "' ran no pass of loop '" + p.loopId() + "'" + where
        : "run '" + runId + "' ran " + passes + " pass" + (passes == 1 ? "" : "es") + " of loop '" + p.loopId() + "'"
            + where + "; fork at a pass from 1 to " + passes;
    if (passes == 0 && !elsewhere.isEmpty()) {
      msg += "; it is nested: name its enclosing passes, e.g. " + String.join(", ", elsewhere);
    }
    throw new LoopflowException(ErrorCode.FORK_REFUSED, msg, null);
  }

  private static int firstIndex(List<NodeExecution> rows, Predicate<NodeExecution> p) {
    for (int i = 0; i < rows.size(); i++) {
      if (p.test(rows.get(i))) {
        return i;
      }
    }
    return -1;
  }

  private static int firstEvent(List<Event> events, Predicate<Event> p) {
    for (int i = 0; i < events.size(); i++) {
      if (p.test(events.get(i))) {
        return i;
      }
    }
    return events.size();
  }
}
