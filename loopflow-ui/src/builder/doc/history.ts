// Undo and redo for the builder: a bounded history of document texts. A text is the whole state (the document is
// re-read from it), so undoing an edit made on the canvas, in the config panel or in the YAML pane is the same step.

export interface History {
  past: string[];
  present: string;
  future: string[];
}

/** How many earlier texts are kept; the oldest are dropped first. */
export const HISTORY_LIMIT = 100;

export function startHistory(text: string): History {
  return { past: [], present: text, future: [] };
}

/** Records a new text; the same text again is no step, and a new step drops what could have been redone. */
export function record(h: History, text: string, limit = HISTORY_LIMIT): History {
  if (text === h.present) return h;
  const past = [...h.past, h.present];
  return { past: past.length > limit ? past.slice(past.length - limit) : past, present: text, future: [] };
}

export function undo(h: History): History {
  if (h.past.length === 0) return h;
  return { past: h.past.slice(0, -1), present: h.past[h.past.length - 1]!, future: [h.present, ...h.future] };
}

export function redo(h: History): History {
  if (h.future.length === 0) return h;
  return { past: [...h.past, h.present], present: h.future[0]!, future: h.future.slice(1) };
}
