package dev.loopflow.bench.server;

import java.nio.charset.StandardCharsets;

/**
 * An incremental parser of a server-sent-event stream, fed raw bytes as they arrive, following the HTML event-stream
 * rules: lines end with LF, CR or CRLF; a line starting with a colon is a comment; {@code field: value} loses one
 * space after the colon; several {@code data} lines join with LF; a blank line dispatches the frame, and a frame
 * without data dispatches nothing.
 *
 * <p>It keeps what a client needs to check a stream and nothing more, so that hundreds of clients in one process
 * stay cheap: the frame's own {@code id} (absent for an ephemeral event, which the server sends without one), its
 * type, and a 64-bit hash and length of its data instead of the data itself.
 */
final class SseParser {
  /** Receives each dispatched frame. {@code id} is null when the frame had no id line of its own. */
  interface Sink {
    /** {@code data} is null unless the parser was made to keep it. */
    void frame(String id, String type, long dataHash, int dataLength, String data);
  }

  static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private final Sink sink;
  private final java.io.ByteArrayOutputStream kept;
  private byte[] line = new byte[256];
  private int lineLength;
  private boolean lastWasCr;
  private String id;
  private String type;
  private boolean hasData;
  private long dataHash = FNV_OFFSET;
  private int dataLength;

  SseParser(Sink sink) {
    this(sink, false);
  }

  /** {@code keepData}: also hand each frame's data to the sink (for reading a journal, not for hundreds of clients). */
  SseParser(Sink sink, boolean keepData) {
    this.sink = sink;
    this.kept = keepData ? new java.io.ByteArrayOutputStream() : null;
  }

  void feed(byte[] buf, int off, int len) {
    for (int i = off; i < off + len; i++) {
      byte b = buf[i];
      if (b == '\n' && lastWasCr) {
        lastWasCr = false; // the LF of a CRLF: the line already ended at the CR
        continue;
      }
      lastWasCr = b == '\r';
      if (b == '\n' || b == '\r') {
        line();
        lineLength = 0;
      } else {
        if (lineLength == line.length) {
          line = java.util.Arrays.copyOf(line, line.length * 2);
        }
        line[lineLength++] = b;
      }
    }
  }

  /** Whether bytes of an unfinished frame are pending: a stream cut here lost that frame, as a browser would. */
  boolean midFrame() {
    return lineLength > 0 || hasData || id != null || type != null;
  }

  /** Forgets an unfinished frame (a new connection starts clean). */
  void reset() {
    lineLength = 0;
    lastWasCr = false;
    clearFrame();
  }

  private void line() {
    if (lineLength == 0) {
      dispatch();
      return;
    }
    if (line[0] == ':') {
      return; // comment (the server's heartbeat)
    }
    int colon = indexOf((byte) ':');
    int nameEnd = colon < 0 ? lineLength : colon;
    int valueStart = colon < 0 ? lineLength : colon + 1;
    if (valueStart < lineLength && line[valueStart] == ' ') {
      valueStart++;
    }
    if (is("data", nameEnd)) {
      if (hasData) {
        hash((byte) '\n');
      }
      for (int i = valueStart; i < lineLength; i++) {
        hash(line[i]);
      }
      hasData = true;
    } else if (is("id", nameEnd)) {
      id = new String(line, valueStart, lineLength - valueStart, StandardCharsets.UTF_8);
    } else if (is("event", nameEnd)) {
      type = new String(line, valueStart, lineLength - valueStart, StandardCharsets.UTF_8);
    }
    // retry and unknown fields are ignored, as a browser does
  }

  private void dispatch() {
    if (hasData) {
      sink.frame(id, type == null ? "message" : type, dataHash, dataLength,
          kept == null ? null : kept.toString(StandardCharsets.UTF_8));
    }
    clearFrame();
  }

  private void clearFrame() {
    id = null;
    type = null;
    hasData = false;
    if (kept != null) {
      kept.reset();
    }
    dataHash = FNV_OFFSET;
    dataLength = 0;
  }

  private void hash(byte b) {
    if (kept != null) {
      kept.write(b);
    }
    dataHash = (dataHash ^ (b & 0xff)) * FNV_PRIME;
    dataLength++;
  }

  /** The hash {@link Sink#frame} reports for a frame whose data is {@code data}. */
  static long hashOf(String data) {
    long h = FNV_OFFSET;
    for (byte b : data.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xff)) * FNV_PRIME;
    }
    return h;
  }

  private int indexOf(byte b) {
    for (int i = 0; i < lineLength; i++) {
      if (line[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private boolean is(String name, int nameEnd) {
    if (nameEnd != name.length()) {
      return false;
    }
    for (int i = 0; i < nameEnd; i++) {
      if (line[i] != name.charAt(i)) {
        return false;
      }
    }
    return true;
  }
}
