// Parses Mermaid flowcharts with Mermaid's own parser and prints what it understood, so the Java test can check
// both that a diagram parses and that every label reads back as the text loopflow meant.
// Usage: node parse.mjs FILE.mmd...  ->  one JSON array on stdout, one object per file.
// Mermaid sanitizes labels with DOMPurify, which needs a DOM: jsdom provides one (plain node has none).
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });

// Mermaid keeps entity codes (#quot; #35;) in its model as placeholders and decodes them when it renders; decode
// them the same way here: numeric ones to the code point, named ones through the DOM.
const area = document.createElement('textarea');
function decode(text) {
  if (typeof text !== 'string') return text;
  return text
    .replace(/ﬂ°°(\d+)¶ß/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/ﬂ°(\w+)¶ß/g, (_, name) => { area.innerHTML = `&${name};`; return area.value; });
}

const results = [];
for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, 'utf8');
  try {
    await mermaid.parse(text);
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
    const db = diagram.db;
    const vertices = {};
    for (const [id, v] of db.getVertices()) vertices[id] = { text: decode(v.text), type: v.type ?? null };
    const edges = db.getEdges().map(e => ({ from: e.start, to: e.end, text: decode(e.text), stroke: e.stroke }));
    const subgraphs = db.getSubGraphs().map(s => ({ id: s.id, title: decode(s.title), nodes: s.nodes }));
    results.push({ file, ok: true, vertices, edges, subgraphs });
  } catch (e) {
    results.push({ file, ok: false, error: String(e && e.message ? e.message : e) });
  }
}
process.stdout.write(JSON.stringify(results));
