package dev.loopflow.server.internal;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.store.NodeExecution;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/*
 * Design note: what a first look at a run holds of its loops. A run page opened on a loop of thousands of passes
 * must not be sent thousands of passes: it is sent everything outside loops, and of every loop instance only its
 * last `recent` passes (by pass number), nested instances likewise inside the passes kept. The other passes are
 * asked for one at a time (GET .../loops/{loop}/passes/{pass}) and summarised a page at a time (.../passes).
 *
 * The window is taken over what is read, in two steps: see() every item first (the highest pass of each instance),
 * then keeps() decides. An item is kept when every pass it lies in is among the last `recent` of its instance; a
 * loop.iteration event lies in the pass it starts too, so a pass outside the window does not appear as begun. Items
 * about the whole run (no position) are always kept. What must stay true: the kept part of a journal is a journal
 * of its own, in the same order, so a reader folds it as it folds the whole.
 */
final class PassWindow {
  /** The most passes of each loop instance a window may keep. */
  static final int MAX_RECENT = 1000;

  private final int recent;
  private final Map<String, Integer> highest = new HashMap<>();

  private PassWindow(int recent) {
    this.recent = recent;
  }

  /** The events of {@code events} in the window of the last {@code recent} passes of each loop instance. */
  static List<Event> events(List<Event> events, int recent) {
    PassWindow w = new PassWindow(recent);
    for (Event e : events) {
      // A while_loop's last check (its condition false) starts no pass: it must not push a real pass out.
      boolean check = e instanceof Event.LoopIteration it && Boolean.FALSE.equals(it.conditionResult());
      w.see(Events.position(e), check ? null : ownPass(e));
    }
    List<Event> kept = new ArrayList<>();
    for (Event e : events) {
      if (w.keeps(Events.position(e), ownPass(e))) {
        kept.add(e);
      }
    }
    return kept;
  }

  /** The executions of {@code rows} in the window of the last {@code recent} passes of each loop instance. */
  static List<NodeExecution> executions(List<NodeExecution> rows, int recent) {
    PassWindow w = new PassWindow(recent);
    for (NodeExecution e : rows) {
      w.see(e.position(), null);
    }
    List<NodeExecution> kept = new ArrayList<>();
    for (NodeExecution e : rows) {
      if (w.keeps(e.position(), null)) {
        kept.add(e);
      }
    }
    return kept;
  }

  /** The pass a {@code loop.iteration} event starts; null for every other event. */
  private static Integer ownPass(Event e) {
    return e instanceof Event.LoopIteration it ? it.iteration() : null;
  }

  private void see(NodePosition p, Integer ownPass) {
    if (p != null) {
      visit(p, ownPass, true);
    }
  }

  private boolean keeps(NodePosition p, Integer ownPass) {
    return p == null || visit(p, ownPass, false);
  }

  /** Walks the passes {@code p} lies in, outermost first: records the highest of each, or checks each is recent. */
  private boolean visit(NodePosition p, Integer ownPass, boolean record) {
    StringBuilder instance = new StringBuilder();
    int frames = p.loops().size();
    for (int i = 0; i <= frames; i++) {
      String loopId;
      int pass;
      if (i < frames) {
        loopId = p.loops().get(i).loopId();
        pass = p.loops().get(i).iteration();
      } else if (ownPass != null) {
        loopId = p.nodeId();
        pass = ownPass;
      } else {
        break;
      }
      instance.append(loopId);
      String key = instance.toString();
      if (record) {
        highest.merge(key, pass, Math::max);
      } else if (pass <= highest.getOrDefault(key, pass) - recent) {
        return false;
      }
      instance.append('[').append(pass).append("].");
    }
    return true;
  }
}
