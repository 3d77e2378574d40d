// Renders its children inside a shadow root. The YAML pane's editor (CodeMirror) adds its styles at run time; in a
// document it would do so with <style> elements, which the server's Content-Security-Policy (default-src 'self', no
// inline styles) blocks, and the editor would be unstyled. Inside a shadow root it adopts constructed style sheets
// instead, which that policy does not block. The page's own style sheets (files of this origin) are adopted too, so
// what is inside looks as styled as the rest of the page.
import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

export function ShadowHost({ children, className, testId }: { children: ReactNode; className?: string; testId?: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [root, setRoot] = useState<ShadowRoot | null>(null);
  useLayoutEffect(() => {
    const el = host.current;
    if (!el) return;
    const shadow = el.shadowRoot ?? el.attachShadow({ mode: 'open' });
    const sheets: CSSStyleSheet[] = [];
    for (const s of Array.from(document.styleSheets)) {
      try {
        const copy = new CSSStyleSheet();
        copy.replaceSync(Array.from(s.cssRules, (r) => r.cssText).join('\n'));
        sheets.push(copy);
      } catch {
        // a sheet that cannot be read (another origin) is left out
      }
    }
    const host2 = new CSSStyleSheet();
    host2.replaceSync(':host { display: block; min-height: 0; } :host > * { height: 100%; }');
    shadow.adoptedStyleSheets = [...sheets, host2];
    setRoot(shadow);
  }, []);
  return (
    <div ref={host} className={className} data-testid={testId}>
      {root ? createPortal(children, root) : null}
    </div>
  );
}
