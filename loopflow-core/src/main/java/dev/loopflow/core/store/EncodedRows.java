package dev.loopflow.core.store;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.spi.Usage;
import java.time.Instant;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One run's node executions in journal order, held as bytes: a loop pass's row costs tens of bytes here instead of
 * the kilobyte its maps, instants and position take as objects. The in-memory store keeps every row of a run that
 * can still be resumed; held as objects, a long loop's rows outlive many young collections and are promoted, and a
 * collector allowed to grow the heap (the launcher sets no {@code -Xmx}) keeps growing it for them run after run.
 *
 * <p>What must stay true: a row read back equals the row written, field by field. Strings, booleans, {@code Integer},
 * {@code Long} and {@code Double} come back with their own class and value; maps of the JDK with string keys come
 * back as {@link LinkedHashMap} in the same iteration order, lists of the JDK as {@link ArrayList}; any other object
 * (a number of another class, a map or list of a class outside {@code java.util}, a value nested deeper than
 * {@value #MAX_DEPTH}) is kept as it is, by reference. What is read is a copy taken when the row was written, as a
 * durable store's is. Not thread-safe: the store's per-run lock guards it.
 */
final class EncodedRows {
  static final int MAX_DEPTH = 64;
  /** Strings up to this length are numbered once (keys, node ids, kinds, statuses) while there is room. */
  private static final int MAX_NAME_LENGTH = 64;
  private static final int MAX_NAMES = 4_096;

  private static final byte NULL = 0;
  private static final byte NAME = 1;
  private static final byte ASCII = 2;
  private static final byte UTF16 = 3;
  private static final byte INT = 4;
  private static final byte LONG = 5;
  private static final byte DOUBLE = 6;
  private static final byte TRUE = 7;
  private static final byte FALSE = 8;
  private static final byte MAP = 9;
  private static final byte LIST = 10;
  private static final byte REF = 11;
  private static final byte ROW = 12;
  private static final byte USAGE_NONE = 13;
  private static final byte USAGE = 14;
  private static final byte INSTANT = 15;

  private byte[] buf = new byte[512];
  private int len;
  private int size;
  /** Where each row starts in {@link #buf}. */
  private int[] starts = new int[64];
  private final List<Object> refs = new ArrayList<>();
  private final Map<String, Integer> nameIds = new HashMap<>();
  private final List<String> names = new ArrayList<>();

  /** A value that cannot be written (nested too deep, or changed while being written): its row is kept as is. */
  private static final class Unencodable extends RuntimeException {
    Unencodable() {
      super(null, null, false, false);
    }
  }

  int size() {
    return size;
  }

  /** Bytes held for the rows (and names), not counting objects kept by reference. */
  int bytes() {
    return len;
  }

  void add(NodeExecution e) {
    int start = len;
    if (size == starts.length) {
      starts = Arrays.copyOf(starts, size * 2);
    }
    starts[size] = start;
    try {
      writeRow(e);
    } catch (Unencodable | ConcurrentModificationException x) {
      len = start;
      put(REF);
      putVarLong(refs.size());
      refs.add(e);
    }
    size++;
  }

  /** The row at {@code index}, made anew from its bytes. */
  NodeExecution row(String runId, int index) {
    return readRow(runId, new int[] {starts[index]});
  }

  /** The position of the row at {@code index}, read without making the row. */
  NodePosition position(int index) {
    int[] at = {starts[index]};
    if (buf[at[0]++] == REF) {
      return ((NodeExecution) refs.get((int) varLong(at))).position();
    }
    return readPosition(at);
  }

  /** Whether the row at {@code index} sits in a loop pass, read without making the row. */
  boolean inLoop(int index) {
    int[] at = {starts[index]};
    if (buf[at[0]++] == REF) {
      return !((NodeExecution) refs.get((int) varLong(at))).position().loops().isEmpty();
    }
    return varLong(at) != 0;
  }

  /** The rows' positions, each made when asked for (see {@link #view}). */
  List<NodePosition> positions() {
    return new AbstractList<>() {
      @Override
      public NodePosition get(int index) {
        Objects.checkIndex(index, size);
        return position(index);
      }

      @Override
      public int size() {
        return size;
      }
    };
  }

  /**
   * The rows as a list that makes each row when asked for it: reading them one by one leaves only garbage that dies
   * young (a list of all of them at once would be promoted). Only valid while nothing is added.
   */
  List<NodeExecution> view(String runId) {
    return new AbstractList<>() {
      @Override
      public NodeExecution get(int index) {
        Objects.checkIndex(index, size);
        return row(runId, index);
      }

      @Override
      public int size() {
        return size;
      }
    };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Writing

  private void writeRow(NodeExecution e) {
    if (e.position() == null) {
      throw new Unencodable();
    }
    put(ROW);
    List<NodePosition.LoopFrame> loops = e.position().loops();
    putVarLong(loops.size());
    for (NodePosition.LoopFrame f : loops) {
      writeValue(f.loopId(), 0);
      putVarLong(zigzag(f.iteration()));
    }
    writeValue(e.position().nodeId(), 0);
    writeValue(e.kind(), 0);
    put((byte) (e.status() == null ? 0 : e.status().ordinal() + 1));
    putVarLong(zigzag(e.attempts()));
    writeInstant(e.startedAt());
    writeInstant(e.finishedAt());
    writeValue(e.input(), 0);
    writeValue(e.result(), 0);
    writeUsage(e.usage());
    writeValue(e.errorCode(), 0);
    writeValue(e.errorMessage(), 0);
    writeValue(e.statePatch(), 0);
    writeValue(e.sessions(), 0);
  }

  private void writeInstant(Instant t) {
    if (t == null) {
      put(NULL);
      return;
    }
    put(INSTANT);
    putVarLong(zigzag(t.getEpochSecond()));
    putVarLong(t.getNano());
  }

  private void writeUsage(Usage u) {
    if (u == null) {
      put(NULL);
    } else if (u.equals(Usage.NONE)) {
      put(USAGE_NONE);
    } else {
      put(USAGE);
      putVarLong(zigzag(u.inputTokens()));
      putVarLong(zigzag(u.outputTokens()));
      writeValue(u.costUsd(), 0);
      putVarLong(zigzag(u.llmCalls()));
      putVarLong(zigzag(u.unpricedCalls()));
    }
  }

  private void writeValue(Object v, int depth) {
    if (depth > MAX_DEPTH) {
      throw new Unencodable();
    }
    if (v == null) {
      put(NULL);
    } else if (v instanceof String s) {
      writeString(s);
    } else if (v.getClass() == Integer.class) {
      put(INT);
      putVarLong(zigzag((Integer) v));
    } else if (v.getClass() == Long.class) {
      put(LONG);
      putVarLong(zigzag((Long) v));
    } else if (v.getClass() == Double.class) {
      put(DOUBLE);
      long bits = Double.doubleToRawLongBits((Double) v);
      for (int i = 0; i < 8; i++) {
        put((byte) (bits >>> (8 * i)));
      }
    } else if (v.getClass() == Boolean.class) {
      put((Boolean) v ? TRUE : FALSE);
    } else if (v instanceof Map<?, ?> m && ofTheJdk(m)) {
      put(MAP);
      int n = m.size();
      putVarLong(n);
      int seen = 0;
      for (Map.Entry<?, ?> entry : m.entrySet()) {
        if (!(entry.getKey() instanceof String key) || ++seen > n) {
          throw new Unencodable();
        }
        writeString(key);
        writeValue(entry.getValue(), depth + 1);
      }
      if (seen != n) {
        throw new Unencodable();
      }
    } else if (v instanceof List<?> l && ofTheJdk(l)) {
      put(LIST);
      int n = l.size();
      putVarLong(n);
      int seen = 0;
      for (Object item : l) {
        if (++seen > n) {
          throw new Unencodable();
        }
        writeValue(item, depth + 1);
      }
      if (seen != n) {
        throw new Unencodable();
      }
    } else {
      put(REF);
      putVarLong(refs.size());
      refs.add(v);
    }
  }

  /** Maps and lists of the JDK hold nothing but their entries; another class may mean more than its entries. */
  private static boolean ofTheJdk(Object container) {
    return container.getClass().getName().startsWith("java.util.");
  }

  private void writeString(String s) {
    if (s.length() <= MAX_NAME_LENGTH) {
      Integer id = nameIds.get(s);
      if (id == null && names.size() < MAX_NAMES) {
        id = names.size();
        names.add(s);
        nameIds.put(s, id);
      }
      if (id != null) {
        put(NAME);
        putVarLong(id);
        return;
      }
    }
    boolean ascii = true;
    for (int i = 0; i < s.length() && ascii; i++) {
      ascii = s.charAt(i) < 0x80;
    }
    put(ascii ? ASCII : UTF16);
    putVarLong(s.length());
    // Chars as they are (UTF-16 when not ASCII), so that any string, an unpaired surrogate too, reads back exactly.
    ensure(ascii ? s.length() : 2 * s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!ascii) {
        buf[len++] = (byte) (c >>> 8);
      }
      buf[len++] = (byte) c;
    }
  }

  private static long zigzag(long v) {
    return (v << 1) ^ (v >> 63);
  }

  private void put(byte b) {
    ensure(1);
    buf[len++] = b;
  }

  private void putVarLong(long v) {
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buf[len++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[len++] = (byte) v;
  }

  private void ensure(int more) {
    if (len + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Reading: at[0] is the offset, moved past what was read

  private NodeExecution readRow(String runId, int[] at) {
    byte tag = buf[at[0]++];
    if (tag == REF) {
      return (NodeExecution) refs.get((int) varLong(at));
    }
    NodePosition position = readPosition(at);
    String kind = (String) readValue(at);
    int status = buf[at[0]++];
    int attempts = (int) unzigzag(varLong(at));
    Instant started = readInstant(at);
    Instant finished = readInstant(at);
    Map<String, Object> input = map(readValue(at));
    Map<String, Object> result = map(readValue(at));
    Usage usage = readUsage(at);
    String errorCode = (String) readValue(at);
    String errorMessage = (String) readValue(at);
    Map<String, Object> statePatch = map(readValue(at));
    @SuppressWarnings("unchecked")
    Map<String, List<Map<String, String>>> sessions = (Map<String, List<Map<String, String>>>) readValue(at);
    return new NodeExecution(runId, position, kind, status == 0 ? null : NodeStatus.values()[status - 1], attempts,
        started, finished, input, result, usage, errorCode, errorMessage, statePatch, sessions);
  }

  private NodePosition readPosition(int[] at) {
    int frames = (int) varLong(at);
    List<NodePosition.LoopFrame> loops = new ArrayList<>(frames);
    for (int i = 0; i < frames; i++) {
      String loopId = (String) readValue(at);
      loops.add(new NodePosition.LoopFrame(loopId, (int) unzigzag(varLong(at))));
    }
    return new NodePosition(loops, (String) readValue(at));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object v) {
    return (Map<String, Object>) v;
  }

  private Instant readInstant(int[] at) {
    if (buf[at[0]++] == NULL) {
      return null;
    }
    long seconds = unzigzag(varLong(at));
    return Instant.ofEpochSecond(seconds, varLong(at));
  }

  private Usage readUsage(int[] at) {
    byte tag = buf[at[0]++];
    if (tag == NULL) {
      return null;
    }
    if (tag == USAGE_NONE) {
      return Usage.NONE;
    }
    long in = unzigzag(varLong(at));
    long out = unzigzag(varLong(at));
    Double cost = (Double) readValue(at);
    return new Usage(in, out, cost, (int) unzigzag(varLong(at)), (int) unzigzag(varLong(at)));
  }

  private Object readValue(int[] at) {
    byte tag = buf[at[0]++];
    switch (tag) {
      case NULL:
        return null;
      case NAME:
        return names.get((int) varLong(at));
      case ASCII, UTF16: {
        int n = (int) varLong(at);
        char[] chars = new char[n];
        for (int i = 0; i < n; i++) {
          chars[i] = tag == ASCII ? (char) (buf[at[0]++] & 0xFF)
              : (char) (((buf[at[0]++] & 0xFF) << 8) | (buf[at[0]++] & 0xFF));
        }
        return new String(chars);
      }
      case INT:
        return (int) unzigzag(varLong(at));
      case LONG:
        return unzigzag(varLong(at));
      case DOUBLE: {
        long bits = 0;
        for (int i = 0; i < 8; i++) {
          bits |= (buf[at[0]++] & 0xFFL) << (8 * i);
        }
        return Double.longBitsToDouble(bits);
      }
      case TRUE:
        return Boolean.TRUE;
      case FALSE:
        return Boolean.FALSE;
      case MAP: {
        int n = (int) varLong(at);
        Map<String, Object> m = LinkedHashMap.newLinkedHashMap(n);
        for (int i = 0; i < n; i++) {
          String key = (String) readValue(at);
          m.put(key, readValue(at));
        }
        return m;
      }
      case LIST: {
        int n = (int) varLong(at);
        List<Object> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          l.add(readValue(at));
        }
        return l;
      }
      case REF:
        return refs.get((int) varLong(at));
      default:
        throw new IllegalStateException("encoded rows: unknown tag " + tag + " at " + (at[0] - 1));
    }
  }

  private static long unzigzag(long v) {
    return (v >>> 1) ^ -(v & 1);
  }

  private long varLong(int[] at) {
    long v = 0;
    for (int shift = 0; ; shift += 7) {
      byte b = buf[at[0]++];
      v |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return v;
      }
    }
  }
}
