import { describe, expect, it } from 'vitest';
import { firstLine, flattenSteps, transcript } from './transcript';

describe('transcript', () => {
  it('reads an llm call: system, the messages with their roles, then the reply', () => {
    const t = transcript(
      [{ type: 'request', system: 'Be brief.', messages: [{ role: 'user', content: 'Earlier' }, { role: 'assistant', content: 'Hi' }, { role: 'user', content: 'Now' }] }],
      { text: '**done**', provider: 'mock' },
    );
    expect(t.hasRequest).toBe(true);
    expect(t.lines.map((l) => `${l.role}: ${l.content}`)).toEqual(['system: Be brief.', 'user: Earlier', 'assistant: Hi', 'user: Now', 'assistant: **done**']);
  });

  it("reads an agent: its turns, the tools it asked for and each tool's result, a resumed execution's steps opened", () => {
    const t = transcript(
      [
        {
          type: 'resumed',
          steps: [
            { type: 'request', system: 'Use tools.', messages: [{ role: 'user', content: 'Go' }] },
            { type: 'model', turn: 1, text: '', tool_calls: [{ name: 'write', arguments: { key: 'k' } }] },
          ],
        },
        { type: 'tool', turn: 1, name: 'write', result: { ok: true } },
        { type: 'tool', turn: 1, name: 'read', error: { code: 'tool_failed' } },
        { type: 'model', turn: 2, text: 'Stored.' },
        { type: 'llm.reserved' },
      ],
      { text: 'Stored.' },
    );
    expect(t.lines.map((l) => l.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(t.lines[2]?.toolCalls).toEqual([{ name: 'write', arguments: '{\n  "key": "k"\n}' }]);
    expect(t.lines[3]).toMatchObject({ name: 'write', content: '{\n  "ok": true\n}', error: false });
    expect(t.lines[4]).toMatchObject({ name: 'read', error: true });
    expect(t.lines[5]?.content).toBe('Stored.');
  });

  it('says when the request was not journaled and keeps what the journal cut', () => {
    expect(transcript([], { text: 'reply' })).toEqual({ hasRequest: false, omitted: 0, lines: [{ role: 'assistant', content: 'reply', cut: 0, toolCalls: [] }] });
    const t = transcript([{ type: 'request', system: 'x', system_cut: 5, messages: [{ role: 'evil<script>', content: null, cut: 9 }], omitted: 3 }], null);
    expect(t.omitted).toBe(3);
    expect(t.lines).toEqual([
      { role: 'system', content: 'x', cut: 5, toolCalls: [] },
      { role: 'user', content: '', cut: 9, toolCalls: [] },
    ]);
  });

  it('ignores what is not a step', () => {
    expect(flattenSteps([null, 3, 'x', [], { type: 'model' }])).toEqual([{ type: 'model' }]);
    expect(firstLine('a'.repeat(200) + '\nb')).toBe('a'.repeat(120) + '…');
  });
});
