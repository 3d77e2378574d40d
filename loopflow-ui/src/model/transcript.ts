// An LLM or agent execution as a chat transcript: the messages its request opened with (system prompt, a session's
// earlier turns, the new messages, as the journal's `request` step holds them), then for an agent each model turn
// (its text and the tools it asked for) and each tool's result, and for a plain LLM call its reply. Text stays text;
// how much the journal cut from a message is carried so the view can say so.
import { valueText } from './format';

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface ChatLine {
  role: Role;
  content: string;
  /** characters the journal left out of this message */
  cut: number;
  /** a tool message: the tool's name; an assistant turn: its number */
  name?: string;
  turn?: number;
  toolCalls: { name: string; arguments: string }[];
  error?: boolean;
}

export interface Transcript {
  lines: ChatLine[];
  /** whether the request was journaled (runs from before it was have only the rendered templates) */
  hasRequest: boolean;
  /** earlier messages of a long session left out of the journal */
  omitted: number;
}

const ROLES: Role[] = ['system', 'user', 'assistant', 'tool'];

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** The steps in journal order, a resumed execution's `resumed` step opened up. */
export function flattenSteps(steps: unknown[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const s of steps) {
    const r = asRecord(s);
    if (!r) continue;
    if (r.type === 'resumed' && Array.isArray(r.steps)) out.push(...flattenSteps(r.steps));
    else out.push(r);
  }
  return out;
}

export function transcript(steps: unknown[], result: Record<string, unknown> | null | undefined): Transcript {
  const flat = flattenSteps(steps);
  const lines: ChatLine[] = [];
  let request: Record<string, unknown> | undefined;
  for (const s of flat) if (s.type === 'request') request = s;
  let omitted = 0;
  if (request) {
    if (typeof request.system === 'string' && request.system) {
      lines.push({ role: 'system', content: request.system, cut: num(request.system_cut), toolCalls: [] });
    }
    for (const m of Array.isArray(request.messages) ? request.messages : []) {
      const r = asRecord(m);
      if (!r) continue;
      const role = ROLES.includes(r.role as Role) ? (r.role as Role) : 'user';
      lines.push({ role, content: valueText(r.content), cut: num(r.cut), toolCalls: [] });
    }
    omitted = num(request.omitted);
  }
  let turns = 0;
  for (const s of flat) {
    if (s.type === 'model') {
      turns++;
      const calls = (Array.isArray(s.tool_calls) ? s.tool_calls : []).map((c) => {
        const r = asRecord(c) ?? {};
        return { name: valueText(r.name), arguments: valueText(r.arguments) };
      });
      lines.push({ role: 'assistant', content: valueText(s.text), cut: 0, turn: num(s.turn) || turns, toolCalls: calls });
    } else if (s.type === 'tool') {
      const failed = s.error !== undefined && s.error !== null;
      lines.push({
        role: 'tool',
        name: valueText(s.name),
        turn: num(s.turn),
        content: valueText(failed ? s.error : s.result),
        cut: 0,
        toolCalls: [],
        error: failed,
      });
    }
  }
  if (turns === 0 && result) {
    const reply = typeof result.text === 'string' ? result.text : undefined;
    if (reply !== undefined) lines.push({ role: 'assistant', content: reply, cut: 0, toolCalls: [] });
  }
  return { lines, hasRequest: !!request, omitted };
}

/** A message's first line, cut short, for its folded summary. */
export function firstLine(text: string, max = 120): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > max ? line.slice(0, max) + '…' : line;
}
