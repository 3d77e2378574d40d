// What a person answered at an approval node, read from its journaled result. A rejection that failed the run has no
// result; its partial result travels with the error, so both places are read. Fields the result does not carry (the
// engine does not record who answered) stay empty rather than being guessed.
import { valueText } from './format';

export interface ApprovalAnswer {
  /** "approved", "rejected", …; empty while the approval is still waiting */
  decision: string;
  comment: string;
  /** the question the person was asked */
  message: string;
  timedOut: boolean;
  /** the form's values (an approval with a schema), as compact JSON; empty when none were given */
  values: string;
  /** who answered, when the result carries it */
  by: string;
  /** when the answer was journaled (the execution's end), when it was answered */
  at: string;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function approvalAnswer(
  result: unknown,
  error: Record<string, unknown> | null | undefined,
  finishedAt: string | null | undefined,
): ApprovalAnswer | undefined {
  const r = asRecord(result) ?? asRecord(error?.partial) ?? asRecord(error?.result) ?? asRecord(error?.details);
  if (!r) return undefined;
  const decision = typeof r.decision === 'string' ? r.decision : typeof r.approved === 'boolean' ? (r.approved ? 'approved' : 'rejected') : '';
  const text = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? '' : valueText(v));
  return {
    decision,
    comment: text(r.comment),
    message: text(r.message),
    timedOut: r.timed_out === true,
    values: asRecord(r.values) && Object.keys(r.values as object).length > 0 ? JSON.stringify(r.values) : '',
    by: text(r.by ?? r.answered_by ?? r.user),
    at: decision ? text(finishedAt) : '',
  };
}
