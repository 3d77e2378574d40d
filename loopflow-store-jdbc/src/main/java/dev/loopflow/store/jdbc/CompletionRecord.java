package dev.loopflow.store.jdbc;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One node completion as the completion log holds it: the columns of its node execution row, with its sequence
 * number, and the events appended before it, each as the store writes it. Applying a record runs idempotent
 * inserts, so a record applied twice leaves the tables as once. What must stay true: a record holds exactly what
 * the store's direct path would insert for the same completion (the columns are computed by the same code, only
 * carried here), and it holds no reference to a large value the tables do not have (a completion with large values
 * goes the direct way).
 */
record CompletionRecord(String[] row, long seq, List<EventRow> events) {
  /** The node execution's columns, in the order of {@link #INSERT_EXECUTION}'s parameters after run id and seq. */
  static final int ROW_COLUMNS = 15;

  /** One event as its row is written. */
  record EventRow(String runId, long seq, String type, String at, String body) {}

  /** The run id is the row's first column. */
  String runId() {
    return row[0];
  }

  static final String INSERT_EXECUTION = "INSERT INTO lf_node_executions (run_id, seq, path, node_id, "
      + "loops_json, kind, status, attempts, started_at, finished_at, input_json, result_json, usage_json, "
      + "error_code, error_message, state_patch_json, sessions_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
      + "ON CONFLICT (run_id, seq) DO NOTHING";
  static final String INSERT_EVENT = "INSERT INTO lf_events (run_id, seq, type, at, body) "
      + "VALUES (?,?,?,?,?) ON CONFLICT (run_id, seq) DO NOTHING";

  private static final byte VERSION = 1;

  /** Inserts what the record holds, on {@code c} inside the caller's transaction. */
  void apply(Connection c, StatementCache statements) throws SQLException {
    if (!events.isEmpty()) {
      PreparedStatement ps = statements.get(c, INSERT_EVENT);
      try {
        for (EventRow e : events) {
          ps.setString(1, e.runId());
          ps.setLong(2, e.seq());
          ps.setString(3, e.type());
          ps.setString(4, e.at());
          ps.setString(5, e.body());
          ps.addBatch();
        }
        ps.executeBatch();
      } finally {
        ps.clearBatch();
      }
    }
    PreparedStatement ps = statements.get(c, INSERT_EXECUTION);
    ps.setString(1, row[0]);
    ps.setLong(2, seq);
    for (int i = 1; i < ROW_COLUMNS + 1; i++) {
      if (i == 6) {
        ps.setInt(i + 2, Integer.parseInt(row[i]));
      } else {
        ps.setString(i + 2, row[i]);
      }
    }
    ps.executeUpdate();
  }

  /**
   * Writes the record into {@code out}, after {@link CompletionLog#HEADER} bytes left for the log's header, so that
   * the log appends header and record in one write.
   */
  Writer encode(Writer out) {
    out.reset();
    out.b(VERSION);
    out.l(seq);
    for (String s : row) {
      out.s(s);
    }
    out.i(events.size());
    for (EventRow e : events) {
      out.s(e.runId());
      out.l(e.seq());
      out.s(e.type());
      out.s(e.at());
      out.s(e.body());
    }
    return out;
  }

  /** The record in {@code payload}; an unknown version or a payload that does not parse is damage. */
  static CompletionRecord decode(byte[] payload) {
    // payload is what the log read back: the record without the header.
    ByteBuffer in = ByteBuffer.wrap(payload);
    try {
      if (in.get() != VERSION) {
        throw new IllegalArgumentException("unknown record version");
      }
      long seq = in.getLong();
      String[] row = new String[ROW_COLUMNS + 1];
      for (int i = 0; i < row.length; i++) {
        row[i] = s(in);
      }
      int n = in.getInt();
      if (n < 0 || n > in.remaining()) {
        throw new IllegalArgumentException("bad event count");
      }
      List<EventRow> events = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        events.add(new EventRow(s(in), in.getLong(), s(in), s(in), s(in)));
      }
      if (in.hasRemaining() || row[0] == null || row[6] == null) {
        throw new IllegalArgumentException("bad record");
      }
      Integer.parseInt(row[6]);
      return new CompletionRecord(row, seq, events);
    } catch (BufferUnderflowException | NumberFormatException e) {
      throw new IllegalArgumentException("bad record", e);
    }
  }

  private static String s(ByteBuffer in) {
    int n = in.getInt();
    if (n == -1) {
      return null;
    }
    if (n < 0 || n > in.remaining()) {
      throw new IllegalArgumentException("bad string length");
    }
    String s = new String(in.array(), in.position(), n, StandardCharsets.UTF_8);
    in.position(in.position() + n);
    return s;
  }

  /** A growable byte buffer, reused for every record a store appends. */
  static final class Writer {
    private byte[] buf = new byte[4096];
    private int len;

    /** Starts a new record, after room for the log's header. */
    void reset() {
      len = CompletionLog.HEADER;
    }

    byte[] bytes() {
      return buf;
    }

    int length() {
      return len;
    }

    private void ensure(int more) {
      if (len + more > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
      }
    }

    void b(byte v) {
      ensure(1);
      buf[len++] = v;
    }

    void i(int v) {
      ensure(4);
      buf[len++] = (byte) (v >>> 24);
      buf[len++] = (byte) (v >>> 16);
      buf[len++] = (byte) (v >>> 8);
      buf[len++] = (byte) v;
    }

    void l(long v) {
      i((int) (v >>> 32));
      i((int) v);
    }

    void s(String v) {
      if (v == null) {
        i(-1);
        return;
      }
      byte[] b = v.getBytes(StandardCharsets.UTF_8);
      i(b.length);
      ensure(b.length);
      System.arraycopy(b, 0, buf, len, b.length);
      len += b.length;
    }
  }
}
