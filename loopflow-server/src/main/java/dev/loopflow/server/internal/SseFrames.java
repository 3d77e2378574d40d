package dev.loopflow.server.internal;

import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.secrets.Redactor;
import java.nio.charset.StandardCharsets;

/**
 * An event's server-sent-event frame: {@code id: SEQ}, {@code event: TYPE} and {@code data:} the compact JSON that
 * {@code loopflow events} prints for it (its JSON form, masked again with this process's environment as that command
 * masks journals). Events from the journal and from a live feed become the same bytes, so a stream that switches
 * from one to the other shows no seam. An ephemeral event (streamed text) has no id line: it is not journaled, so a
 * client could not resume from it.
 */
final class SseFrames {
  private final Redactor redactor;

  SseFrames(Redactor redactor) {
    this.redactor = redactor;
  }

  /**
   * One frame: the event's sequence number and type, and the bytes to write.
   *
   * @param ephemeral whether the event is not journaled (its {@code seq} is that of the durable event before it)
   */
  record Frame(long seq, String type, byte[] bytes, boolean ephemeral) {}

  Frame of(Event event) {
    Event e = redactor.event(event);
    String data = Json.compact(Events.toMap(e));
    StringBuilder sb = new StringBuilder(data.length() + 48);
    if (!e.ephemeral()) {
      sb.append("id: ").append(e.seq()).append('\n');
    }
    // Type names are fixed identifiers; compact JSON escapes every line break, so the data is one line.
    sb.append("event: ").append(e.type()).append('\n').append("data: ").append(data).append("\n\n");
    return new Frame(e.seq(), e.type(), sb.toString().getBytes(StandardCharsets.UTF_8), e.ephemeral());
  }

  /** A comment line that keeps the connection (and proxies in between) from timing out. */
  static final byte[] HEARTBEAT = ": heartbeat\n\n".getBytes(StandardCharsets.UTF_8);
}
