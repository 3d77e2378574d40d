// Server-sent events read with fetch, because EventSource cannot send the Authorization header. The parser follows
// the event-stream format: lines end in CRLF, LF or CR; `data:` lines of one event are joined with LF; a blank line
// dispatches; `id:` sets the id to resume from (an id holding NUL is ignored); lines starting with ':' are comments.

export interface SseMessage {
  /** the event's id, or undefined when it had none (ephemeral events) */
  id?: string;
  event: string;
  data: string;
}

export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | undefined;
  private sawId = false;
  /** the last id the stream set, to send back as Last-Event-ID */
  lastEventId = '';
  /** a CR ended the previous chunk: a LF starting the next one belongs to it */
  private pendingCr = false;

  feed(chunk: string): SseMessage[] {
    const out: SseMessage[] = [];
    let text = chunk;
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    // Lines are cut by index and the buffer is sliced once per chunk: slicing it per line made a chunk of many
    // events cost its length times its line count.
    const buf = this.buffer;
    const ends = /\r\n|\r|\n/g;
    let start = 0;
    for (;;) {
      ends.lastIndex = start;
      const m = ends.exec(buf);
      if (!m) break;
      // a CR at the very end may be the first half of a CRLF split across chunks
      if (m[0] === '\r' && m.index === buf.length - 1) {
        this.pendingCr = true;
      }
      const msg = this.line(buf.slice(start, m.index));
      start = m.index + m[0].length;
      if (msg) out.push(msg);
    }
    this.buffer = start === 0 ? buf : buf.slice(start);
    return out;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') {
      const hadData = this.data.length > 0;
      const msg: SseMessage | undefined = hadData
        ? { id: this.sawId ? this.id : undefined, event: this.event || 'message', data: this.data.join('\n') }
        : undefined;
      this.data = [];
      this.event = '';
      this.id = undefined;
      this.sawId = false;
      return msg;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\u0000')) {
          this.id = value;
          this.sawId = true;
          this.lastEventId = value;
        }
        break;
      default:
        // `retry` and unknown fields: this client picks its own reconnection delays
        break;
    }
    return undefined;
  }
}
