package dev.loopflow.core.store;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/*
 * Design note: a part of a run's journal, so that a reader of a run with long loops is not handed the whole of it.
 * Three parts are asked for:
 *   - under(prefix): what happened at positions whose path starts with the prefix — a loop instance's passes
 *     ("refine["), one pass's inside ("outer[2].inner[7]."). Events about the whole run are not under any position.
 *   - pass(loop, k): one pass whole — what ran inside it, and the loop.iteration event that started it.
 *   - recentPasses(n): everything outside loops and, of every loop instance, its last n passes (by pass number),
 *     nested instances likewise inside the passes kept. A loop.iteration event lies in the pass it starts; a
 *     while_loop's last check (its condition false) starts no pass, so it never pushes a real pass out, and it is
 *     kept with the passes before it.
 * Items are chosen by their path alone (and, for loop.iteration, the pass it starts), in two steps — every item is
 * seen, then each is kept or not — so a durable store can choose among rows it has not decoded. What must stay true:
 * the part kept is a journal of its own, in the same order, that folds as the whole does.
 */
public sealed interface JournalSlice {
  /** The items at positions whose path starts with {@code pathPrefix}. */
  static JournalSlice under(String pathPrefix) {
    Objects.requireNonNull(pathPrefix, "pathPrefix");
    return new Under(pathPrefix);
  }

  /** Pass {@code pass} (from 1) of the loop instance at {@code loopPath}: what ran in it and the event that began it. */
  static JournalSlice pass(String loopPath, int pass) {
    Objects.requireNonNull(loopPath, "loopPath");
    if (pass < 1) {
      throw new IllegalArgumentException("pass must be at least 1, was " + pass);
    }
    return new Pass(loopPath, pass);
  }

  /** Everything outside loops and the last {@code passes} passes of every loop instance; passes is at least 1. */
  static JournalSlice recentPasses(int passes) {
    if (passes < 1) {
      throw new IllegalArgumentException("recentPasses must be at least 1, was " + passes);
    }
    return new Recent(passes);
  }

  /** See {@link #under}. */
  record Under(String pathPrefix) implements JournalSlice {}

  /** See {@link #pass}. */
  record Pass(String loopPath, int pass) implements JournalSlice {}

  /** See {@link #recentPasses}. */
  record Recent(int passes) implements JournalSlice {}

  /**
   * A prefix every kept item's path starts with, for a store to narrow its read before choosing; null when the
   * slice keeps items anywhere (and events about the whole run).
   */
  default String pathPrefix() {
    return switch (this) {
      case Under u -> u.pathPrefix();
      case Pass p -> p.loopPath();
      case Recent r -> null;
    };
  }

  /** A fresh chooser for one read: see every item, then ask whether each is kept. */
  default Chooser chooser() {
    return switch (this) {
      case Under u -> new Chooser() {
        @Override
        public void see(String path, int startsPass) {}

        @Override
        public boolean keeps(String path, int inPass) {
          return path != null && path.startsWith(u.pathPrefix());
        }
      };
      case Pass p -> new Chooser() {
        private final String inside = p.loopPath() + "[" + p.pass() + "].";

        @Override
        public void see(String path, int startsPass) {}

        @Override
        public boolean keeps(String path, int inPass) {
          return path != null && (path.startsWith(inside) || inPass == p.pass() && path.equals(p.loopPath()));
        }
      };
      case Recent r -> new RecentChooser(r.passes());
    };
  }

  /** The events of {@code events} in this part, in their order. */
  default List<Event> events(List<Event> events) {
    Chooser c = chooser();
    for (Event e : events) {
      c.see(path(e), startsPass(e));
    }
    List<Event> kept = new ArrayList<>();
    for (Event e : events) {
      if (c.keeps(path(e), inPass(e))) {
        kept.add(e);
      }
    }
    return kept;
  }

  /** The executions of {@code rows} in this part, in their order. */
  default List<NodeExecution> executions(List<NodeExecution> rows) {
    Chooser c = chooser();
    for (NodeExecution e : rows) {
      c.see(e.position().path(), 0);
    }
    List<NodeExecution> kept = new ArrayList<>();
    for (NodeExecution e : rows) {
      if (c.keeps(e.position().path(), 0)) {
        kept.add(e);
      }
    }
    return kept;
  }

  /** An event's position's path; null for events about the whole run. */
  static String path(Event e) {
    NodePosition p = Events.position(e);
    return p == null ? null : p.path();
  }

  /** The pass a {@code loop.iteration} event starts (0 for every other event, and for a while_loop's last check). */
  static int startsPass(Event e) {
    return e instanceof Event.LoopIteration it && !Boolean.FALSE.equals(it.conditionResult()) ? it.iteration() : 0;
  }

  /** The pass of the loop at the event's own position that it belongs to: a loop.iteration's, else 0. */
  static int inPass(Event e) {
    return e instanceof Event.LoopIteration it ? it.iteration() : 0;
  }

  /**
   * Chooses items by path in two steps. {@code startsPass}/{@code inPass}: for a loop.iteration, the pass of the loop
   * at {@code path} it starts or belongs to; 0 for every other item.
   */
  interface Chooser {
    void see(String path, int startsPass);

    boolean keeps(String path, int inPass);
  }

  /** The chooser of {@link #recentPasses}: the highest pass of every loop instance seen, then the window below it. */
  final class RecentChooser implements Chooser {
    private final int recent;
    private final Map<String, Integer> highest = new HashMap<>();

    private RecentChooser(int recent) {
      this.recent = recent;
    }

    @Override
    public void see(String path, int startsPass) {
      if (path != null) {
        walk(path, startsPass, true);
      }
    }

    @Override
    public boolean keeps(String path, int inPass) {
      return path == null || walk(path, inPass, false);
    }

    /**
     * Walks the passes {@code path} lies in, outermost first ({@code outer[2].inner[7].count}: outer's pass 2, then
     * outer[2].inner's pass 7), and {@code own}, a pass of the loop at the path itself: records the highest of each
     * instance, or checks each is among its instance's recent ones.
     */
    private boolean walk(String path, int own, boolean record) {
      int start = 0;
      while (start <= path.length()) {
        int dot = path.indexOf('.', start);
        int end = dot < 0 ? path.length() : dot;
        int open = path.lastIndexOf('[', end - 1);
        int pass;
        String instance;
        if (open >= start && end > 0 && path.charAt(end - 1) == ']') {
          instance = path.substring(0, open);
          pass = parsePass(path, open + 1, end - 1);
        } else if (dot < 0 && own > 0) {
          instance = path;
          pass = own;
        } else {
          pass = 0;
          instance = null;
        }
        if (instance != null && pass > 0) {
          if (record) {
            highest.merge(instance, pass, Math::max);
          } else if (pass <= highest.getOrDefault(instance, pass) - recent) {
            return false;
          }
        }
        if (dot < 0) {
          break;
        }
        start = dot + 1;
      }
      return true;
    }

    private static int parsePass(String s, int from, int to) {
      if (to <= from || to - from > 9) {
        return 0;
      }
      int n = 0;
      for (int i = from; i < to; i++) {
        char c = s.charAt(i);
        if (c < '0' || c > '9') {
          return 0;
        }
        n = n * 10 + (c - '0');
      }
      return n;
    }
  }
}
