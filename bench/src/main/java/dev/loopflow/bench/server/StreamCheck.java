package dev.loopflow.bench.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The "nothing lost" check: a client must have received every journaled event exactly once, in sequence order, with
 * the journal's type and data, across all its connections, and nothing else. Anything different is reported in
 * terms a reader can act on: which sequence numbers were missing, duplicated, out of order, unknown or altered.
 */
final class StreamCheck {
  /** At most this many ranges of sequence numbers are listed per kind of problem. */
  private static final int RANGES = 8;

  private StreamCheck() {}

  /** The problems of one client's deliveries against the journal; empty when it got exactly the journal. */
  static List<String> check(Journal journal, SseClient client) {
    List<String> out = new ArrayList<>();
    String who = client.describe() + ": ";
    for (String p : client.problems()) {
      out.add(who + p);
    }
    List<Journal.Entry> ref = journal.entries();
    int n = client.deliveries();
    if (n == ref.size() && matchesInOrder(ref, client)) {
      return out;
    }
    Map<Long, Journal.Entry> bySeq = new HashMap<>();
    ref.forEach(e -> bySeq.put(e.seq(), e));
    Map<Long, Integer> seen = new HashMap<>();
    TreeSet<Long> duplicated = new TreeSet<>();
    TreeSet<Long> unknown = new TreeSet<>();
    TreeSet<Long> altered = new TreeSet<>();
    TreeSet<Long> outOfOrder = new TreeSet<>();
    for (int i = 0; i < n; i++) {
      long seq = client.seq(i);
      if (seen.merge(seq, 1, Integer::sum) == 2) {
        duplicated.add(seq);
      }
      if (i > 0 && seq < client.seq(i - 1)) {
        outOfOrder.add(seq);
      }
      Journal.Entry e = bySeq.get(seq);
      if (e == null) {
        unknown.add(seq);
      } else if (e.hash() != client.hash(i) || !e.type().equals(client.type(i))) {
        altered.add(seq);
      }
    }
    TreeSet<Long> missing = new TreeSet<>();
    for (Journal.Entry e : ref) {
      if (!seen.containsKey(e.seq())) {
        missing.add(e.seq());
      }
    }
    report(out, who, "missing", missing);
    report(out, who, "duplicated", duplicated);
    report(out, who, "out of order", outOfOrder);
    report(out, who, "not in the journal", unknown);
    report(out, who, "with another type or data than the journal's", altered);
    if (out.isEmpty()) {
      out.add(who + "received " + n + " events, the journal holds " + ref.size());
    }
    return out;
  }

  private static boolean matchesInOrder(List<Journal.Entry> ref, SseClient c) {
    for (int i = 0; i < ref.size(); i++) {
      Journal.Entry e = ref.get(i);
      if (c.seq(i) != e.seq() || c.hash(i) != e.hash() || !e.type().equals(c.type(i))) {
        return false;
      }
    }
    return true;
  }

  private static void report(List<String> out, String who, String what, TreeSet<Long> seqs) {
    if (!seqs.isEmpty()) {
      out.add(who + seqs.size() + (seqs.size() == 1 ? " event " : " events ") + what + " (seq " + ranges(seqs) + ")");
    }
  }

  /** "3-7, 12, 40-41, ..." : consecutive numbers as ranges, at most {@link #RANGES} of them. */
  static String ranges(TreeSet<Long> seqs) {
    StringBuilder sb = new StringBuilder();
    int ranges = 0;
    Long start = null;
    Long prev = null;
    for (long s : seqs) {
      if (prev != null && s == prev + 1) {
        prev = s;
        continue;
      }
      if (start != null) {
        if (ranges++ == RANGES) {
          return sb.append(", ...").toString();
        }
        append(sb, start, prev);
      }
      start = s;
      prev = s;
    }
    if (ranges == RANGES) {
      return sb.append(", ...").toString();
    }
    append(sb, start, prev);
    return sb.toString();
  }

  private static void append(StringBuilder sb, long from, long to) {
    if (!sb.isEmpty()) {
      sb.append(", ");
    }
    sb.append(from);
    if (to != from) {
      sb.append('-').append(to);
    }
  }
}
