// The palette: node kinds grouped as the builder's design groups them (LOGIC, AI, ACTIONS, I/O, and OTHER for kinds
// the server knows that the table does not). Drag one onto the canvas or into a loop body, or press it to add the
// node to the selected body (or the top level).
import type { DragEvent } from 'react';
import { PALETTE_GROUPS, type PaletteEntry } from '../doc/kinds';
import { PALETTE_MIME } from './BuilderCanvas';
import { kindIcon } from './icons';

export function Palette({ entries, onAdd, disabled }: { entries: PaletteEntry[]; onAdd: (kind: string) => void; disabled?: boolean }) {
  const start = (ev: DragEvent, kind: string) => {
    ev.dataTransfer.setData(PALETTE_MIME, kind);
    ev.dataTransfer.effectAllowed = 'copy';
  };
  return (
    <nav className="palette" aria-label="node palette" data-testid="palette">
      {PALETTE_GROUPS.map((g) => {
        const list = entries.filter((e) => e.group === g);
        if (!list.length) return null;
        return (
          <section key={g} className="palette-group" data-testid={`palette-group-${g}`} aria-labelledby={`palette-${g}`}>
            <h3 id={`palette-${g}`}>{g}</h3>
            <ul>
              {list.map((e) => {
                const Icon = kindIcon(e.kind);
                return (
                  <li key={e.kind}>
                    <button
                      type="button"
                      draggable={!disabled}
                      disabled={disabled}
                      onDragStart={(ev) => start(ev, e.kind)}
                      onClick={() => onAdd(e.kind)}
                      className={`palette-item${e.kind === 'loop' || e.kind === 'exit' ? ' loop-family' : ''}`}
                      data-testid={`palette-${e.kind}`}
                      title={`${e.label}: drag onto the canvas or into a loop body, or press to add`}
                    >
                      <Icon aria-hidden="true" size={14} /> {e.label}
                    </button>
                  </li>
                );
              })}
            </ul>
          </section>
        );
      })}
    </nav>
  );
}
