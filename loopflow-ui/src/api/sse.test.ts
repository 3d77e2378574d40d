import { describe, expect, it } from 'vitest';
import { SseParser } from './sse';

const stream = 'id: 1\nevent: run.started\ndata: {"type":"run.started","seq":1}\n\n' +
  ': keep-alive\n\n' +
  'event: node.streaming\ndata: {"type":"node.streaming","tokens":"a"}\n\n' +
  'id: 2\r\nevent: node.started\r\ndata: {"type":"node.started",\r\ndata: "seq":2}\r\n\r\n';

describe('SseParser', () => {
  it('reads ids, types and multi-line data, and skips comments', () => {
    const p = new SseParser();
    const msgs = p.feed(stream);
    expect(msgs.map((m) => [m.id, m.event])).toEqual([
      ['1', 'run.started'],
      [undefined, 'node.streaming'],
      ['2', 'node.started'],
    ]);
    expect(JSON.parse(msgs[2]!.data)).toEqual({ type: 'node.started', seq: 2 });
    expect(p.lastEventId).toBe('2');
  });

  it.each([1, 2, 3, 5, 7, 13])('gives the same messages whatever the chunk size (%i)', (size) => {
    const whole = new SseParser().feed(stream);
    const p = new SseParser();
    const got = [];
    for (let i = 0; i < stream.length; i += size) got.push(...p.feed(stream.slice(i, i + size)));
    expect(got).toEqual(whole);
  });

  it('treats a CR split from its LF as one line end', () => {
    const p = new SseParser();
    const a = p.feed('data: x\r');
    const b = p.feed('\n\r\n');
    expect([...a, ...b]).toEqual([{ id: undefined, event: 'message', data: 'x' }]);
  });

  it('keeps hostile data as data', () => {
    const p = new SseParser();
    const [m] = p.feed('data: <img src=x onerror=alert(1)>\nid: 9\u0000\n\n');
    expect(m).toEqual({ id: undefined, event: 'message', data: '<img src=x onerror=alert(1)>' });
    expect(p.lastEventId).toBe('');
  });
});
