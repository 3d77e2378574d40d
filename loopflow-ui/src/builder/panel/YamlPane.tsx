// The builder's YAML pane: CodeMirror 6 with YAML highlighting, line numbers, undo history, the loader's problems as
// lint marks, and completion of keys and values from the workflow JSON Schema (GET /api/schema). The text belongs to
// the page: a person's edit is reported with onChange; a new text from outside (a canvas edit, undo on the page)
// replaces the editor's content as one minimal change, so the cursor stays where the change is not, and it is not
// reported back as an edit.
import { useEffect, useRef } from 'react';
import { Annotation, EditorState, Transaction } from '@codemirror/state';
import { EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { autocompletion, completionKeymap, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import type { Problem } from '../contract';
import { schemaCompletion } from './schemaCompletion';
import { minimalChange, problemMarks } from './yamlSync';
import './panel.css';

export interface YamlPaneProps {
  text: string;
  onChange(text: string): void;
  problems: Problem[];
  /** The workflow JSON Schema (GET /api/schema); null while it loads (no completion then). */
  schema: object | null;
}

/** The pane's look, as an editor theme (page style sheets do not reach into the editor's shadow root). */
const paneTheme = EditorView.theme({
  '&': { height: '100%', fontSize: '0.85rem', backgroundColor: 'var(--panel, #fff)', color: 'var(--text, #1f2328)' },
  '.cm-scroller': { fontFamily: 'var(--mono, monospace)', overflow: 'auto' },
  '&.cm-focused': { outline: '2px solid var(--focus, #0b5cad)' },
  // The lint package draws its marks with data: images, which the Content-Security-Policy (img-src 'self') blocks:
  // drawn with CSS instead.
  '.cm-lintRange-error': { backgroundImage: 'none', textDecoration: 'underline wavy var(--fail, #c0232c)', textDecorationSkipInk: 'none' },
  '.cm-lint-marker-error': { content: 'none', backgroundImage: 'none', width: '0.6em', height: '0.6em', margin: '0.2em', borderRadius: '50%', backgroundColor: 'var(--fail, #c0232c)' },
});

/** Marks a transaction that brings in a text from outside: not an edit of the person's, never reported. */
const External = Annotation.define<boolean>();

/** CodeMirror's completion from the schema (see schemaCompletion). */
export function completionSource(schema: () => object | null) {
  return (ctx: CompletionContext): CompletionResult | null => {
    const r = schemaCompletion(ctx.state.doc.toString(), ctx.pos, schema());
    if (!r) return null;
    // On an empty key position, offer keys only when asked (Ctrl-Space), not at every new line.
    if (r.from === ctx.pos && !ctx.explicit && r.options[0]?.kind === 'property') return null;
    return {
      from: r.from,
      to: r.to,
      options: r.options.map((o) => ({
        label: o.label,
        type: o.kind === 'property' ? 'property' : 'enum',
        info: o.detail,
        apply: o.kind === 'property' ? `${o.label}: ` : o.label,
      })),
      validFor: /^[A-Za-z0-9_.-]*$/,
    };
  };
}

export function YamlPane({ text, onChange, problems, schema }: YamlPaneProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  const schemaRef = useRef(schema);
  onChangeRef.current = onChange;
  schemaRef.current = schema;

  useEffect(() => {
    if (!host.current) return;
    // The editor lives in a shadow root: there CodeMirror's styles go into a constructed style sheet, which the
    // server's Content-Security-Policy (no inline <style>) allows; in the document it would add a <style> element,
    // which the policy blocks, and the editor would show unstyled.
    const shadow = host.current.shadowRoot ?? host.current.attachShadow({ mode: 'open' });
    const parent = document.createElement('div');
    parent.style.height = '100%';
    shadow.replaceChildren(parent);
    const v = new EditorView({
      root: shadow,
      parent,
      state: EditorState.create({
        doc: text,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          highlightActiveLine(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          yaml(),
          lintGutter(),
          autocompletion({ override: [completionSource(() => schemaRef.current)] }),
          keymap.of([...completionKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
          EditorView.updateListener.of((u) => {
            if (u.docChanged && !u.transactions.some((t) => t.annotation(External))) onChangeRef.current(u.state.doc.toString());
          }),
          paneTheme,
          EditorView.contentAttributes.of({ 'aria-label': 'workflow YAML', 'data-testid': 'yaml-editor' }),
        ],
      }),
    });
    view.current = v;
    return () => {
      v.destroy();
      parent.remove();
      view.current = null;
    };
    // The editor is made once; later texts arrive through the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const change = minimalChange(v.state.doc.toString(), text);
    if (!change) return;
    v.dispatch({ changes: change, annotations: [External.of(true), Transaction.addToHistory.of(false)] });
  }, [text]);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const diagnostics: Diagnostic[] = problemMarks(v.state.doc.toString(), problems).map((m) => ({
      from: m.from,
      to: m.to,
      severity: 'error',
      message: m.message,
    }));
    v.dispatch(setDiagnostics(v.state, diagnostics));
  }, [problems, text]);

  return <div className="yaml-pane" ref={host} data-testid="yaml-pane" />;
}
