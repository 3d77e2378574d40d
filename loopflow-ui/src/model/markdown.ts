// A small Markdown reader for node outputs and model replies. It turns text into a tree of blocks and inline spans
// that the Markdown component renders as React elements; nothing here produces HTML, so raw HTML in the text stays
// text. It is bounded: at most MD_MAX_CHARS characters are read (the rest is reported as cut), blockquotes and lists
// nest at most MD_MAX_DEPTH deep and emphasis at most MD_MAX_INLINE_DEPTH deep (deeper text is kept as plain text),
// and every delimiter search reuses the last position found, so no input makes it scan the text more than a few
// times. Links keep only http, https and mailto addresses; any other address (javascript:, data:, a relative one,
// one with spaces or control characters) is shown as the text it is.

export const MD_MAX_CHARS = 50_000;
export const MD_MAX_DEPTH = 8;
export const MD_MAX_INLINE_DEPTH = 4;

export type Inline =
  | { t: 'text'; text: string }
  | { t: 'code'; text: string }
  | { t: 'em' | 'strong'; children: Inline[] }
  | { t: 'link'; href: string; children: Inline[] }
  | { t: 'br' };

export type Block =
  | { t: 'h'; level: number; children: Inline[] }
  | { t: 'p'; children: Inline[] }
  | { t: 'code'; lang: string; text: string }
  | { t: 'quote'; children: Block[] }
  | { t: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { t: 'hr' }
  | { t: 'table'; head: Inline[][]; rows: Inline[][][] };

export interface MarkdownDoc {
  blocks: Block[];
  /** how many characters were left unread, 0 when the whole text was read */
  cut: number;
}

/** An address a link may point to, or undefined: only absolute http(s) and mailto addresses without spaces. */
export function safeHref(raw: string): string | undefined {
  if (!/^(https?:\/\/[^\s\x00-\x1f\x7f-\x9f]+|mailto:[^\s\x00-\x1f\x7f-\x9f]+)$/i.test(raw)) return undefined;
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:' ? raw : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether rendering `text` as Markdown could differ from the text itself: it has a character Markdown reads (emphasis,
 * code, headings, quotes, links, tables, escapes) or a line that starts a list or a rule. Plain words are not offered
 * a Markdown view.
 */
export function mayBeMarkdown(text: string): boolean {
  return /[*_`#>[|\\<~]/.test(text) || /^\s{0,3}([-+]|\d{1,9}[.)])(\s|$)/m.test(text) || /\n/.test(text);
}

export function parseMarkdown(text: string | null | undefined): MarkdownDoc {
  const s = text ?? '';
  const read = s.length > MD_MAX_CHARS ? s.slice(0, MD_MAX_CHARS) : s;
  return { blocks: parseBlocks(read.replace(/\r\n?/g, '\n').split('\n'), 0), cut: s.length - read.length };
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/;
const BULLET = /^( {0,3})([-*+])[ \t]+(.*)$/;
const ORDERED = /^( {0,3})(\d{1,9})[.)][ \t]+(.*)$/;
const HR = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const TABLE_RULE = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

function isBlank(line: string): boolean {
  return line.trim() === '';
}

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || BULLET.test(line) || ORDERED.test(line) || HR.test(line) || QUOTE.test(line);
}

/** A heading's text without its closing #s (a loop, not a regular expression: no backtracking on long lines). */
function headingText(s: string): string {
  let end = s.length;
  while (end > 0 && (s[end - 1] === ' ' || s[end - 1] === '\t')) end--;
  let hashes = end;
  while (hashes > 0 && s[hashes - 1] === '#') hashes--;
  if (hashes < end && (hashes === 0 || s[hashes - 1] === ' ' || s[hashes - 1] === '\t')) end = hashes;
  while (end > 0 && (s[end - 1] === ' ' || s[end - 1] === '\t')) end--;
  return s.slice(0, end);
}

function cells(line: string): string[] {
  let l = line.trim();
  if (l.startsWith('|')) l = l.slice(1);
  if (l.endsWith('|')) l = l.slice(0, -1);
  return l.split('|').map((c) => c.trim());
}

function parseBlocks(lines: string[], depth: number): Block[] {
  const out: Block[] = [];
  if (depth > MD_MAX_DEPTH) {
    // deeper than allowed: the rest is plain text, one paragraph
    return [{ t: 'p', children: [{ t: 'text', text: lines.join('\n') }] }];
  }
  const L = (k: number): string => lines[k] ?? '';
  let i = 0;
  while (i < lines.length) {
    const line = L(i);
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const mark = (fence[1] ?? '');
      const body: string[] = [];
      i++;
      // an unclosed fence runs to the end of the text
      while (i < lines.length && !(L(i).trim().startsWith(mark) && L(i).trim().replace(/[`~]/g, '') === '')) {
        body.push(L(i));
        i++;
      }
      i++;
      out.push({ t: 'code', lang: (fence[2] ?? ''), text: body.join('\n') });
      continue;
    }
    const h = HEADING.exec(line);
    if (h) {
      out.push({ t: 'h', level: (h[1] ?? '').length, children: parseInline(headingText(h[2] ?? '')) });
      i++;
      continue;
    }
    if (HR.test(line)) {
      out.push({ t: 'hr' });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && !isBlank(L(i))) {
        const q = QUOTE.exec(L(i));
        body.push(q ? (q[1] ?? '') : L(i));
        i++;
      }
      out.push({ t: 'quote', children: parseBlocks(body, depth + 1) });
      continue;
    }
    const bullet = BULLET.exec(line);
    const ordered = bullet ? null : ORDERED.exec(line);
    if (bullet || ordered) {
      const isOrdered = !!ordered;
      const marker = isOrdered ? ORDERED : BULLET;
      const items: Block[][] = [];
      let start = ordered ? Number((ordered[2] ?? '')) : 1;
      if (!Number.isFinite(start)) start = 1;
      while (i < lines.length) {
        const m = marker.exec(L(i));
        if (!m) break;
        const indent = (m[1] ?? '').length + (isOrdered ? (m[2] ?? '').length + 2 : 2);
        const body = [(m[3] ?? '')];
        i++;
        // the item's continuation: indented lines (a nested list among them), blank lines followed by indented ones
        while (i < lines.length) {
          const l = L(i);
          if (isBlank(l)) {
            if (i + 1 < lines.length && /^\s{2,}\S/.test(L(i + 1))) {
              body.push('');
              i++;
              continue;
            }
            break;
          }
          if (/^\s{2,}\S/.test(l)) {
            body.push(l.slice(Math.min(indent, l.length - l.trimStart().length)));
            i++;
            continue;
          }
          if (startsBlock(l)) break;
          body.push(l); // a lazy continuation of the item's paragraph
          i++;
        }
        items.push(parseBlocks(body, depth + 1));
        while (i < lines.length && isBlank(L(i)) && i + 1 < lines.length && marker.test(L(i + 1))) i++;
      }
      out.push({ t: 'list', ordered: isOrdered, start, items });
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_RULE.test(L(i + 1)) && L(i + 1).includes('-')) {
      const head = cells(line).map(parseInline);
      const rows: Inline[][][] = [];
      i += 2;
      while (i < lines.length && !isBlank(L(i)) && L(i).includes('|')) {
        rows.push(cells(L(i)).map(parseInline));
        i++;
      }
      out.push({ t: 'table', head, rows });
      continue;
    }
    const para: string[] = [line];
    i++;
    while (i < lines.length && !isBlank(L(i)) && !startsBlock(L(i))) {
      para.push(L(i));
      i++;
    }
    out.push({ t: 'p', children: parseInline(para.join('\n')) });
  }
  return out;
}

/**
 * Inline spans of one paragraph. Each delimiter's next position is remembered, so a text of many unclosed openers
 * costs one scan per delimiter, not one per opener.
 */
export function parseInline(s: string, depth = 0): Inline[] {
  const out: Inline[] = [];
  if (depth > MD_MAX_INLINE_DEPTH) return s ? [{ t: 'text', text: s }] : [];
  const next = new Map<string, number>();
  const find = (d: string, from: number): number => {
    const known = next.get(d);
    if (known !== undefined && (known === -1 || known >= from)) return known;
    const at = s.indexOf(d, from);
    next.set(d, at);
    return at;
  };
  let text = '';
  const flush = () => {
    if (text) out.push({ t: 'text', text });
    text = '';
  };
  let i = 0;
  while (i < s.length) {
    const c = s[i] ?? '';
    if (c === '\\' && i + 1 < s.length && /[\\`*_[\]()#+\-.!>|~<]/.test(s[i + 1] ?? '')) {
      text += s[i + 1] ?? '';
      i += 2;
      continue;
    }
    if (c === '\n') {
      if (text.endsWith('  ')) {
        text = text.replace(/ +$/, '');
        flush();
        out.push({ t: 'br' });
      } else {
        text += '\n';
      }
      i++;
      continue;
    }
    if (c === '`') {
      let n = 1;
      while (s[i + n] === '`') n++;
      const d = '`'.repeat(n);
      const end = find(d, i + n);
      if (end > 0) {
        flush();
        out.push({ t: 'code', text: s.slice(i + n, end).replace(/^ (.*) $/s, '$1') });
        i = end + n;
        continue;
      }
      text += d;
      i += n;
      continue;
    }
    if (c === '*' || c === '_') {
      const d = s[i + 1] === c ? c + c : c;
      const end = find(d, i + d.length + 1);
      // an opener followed by a space, or a closer preceded by one, is a literal character
      if (end > 0 && !/\s/.test(s[i + d.length] ?? ' ') && !/\s/.test(s[end - 1] ?? ' ') && !(c === '_' && /\w/.test(s[i - 1] ?? ''))) {
        flush();
        out.push({ t: d.length === 2 ? 'strong' : 'em', children: parseInline(s.slice(i + d.length, end), depth + 1) });
        i = end + d.length;
        continue;
      }
      text += d;
      i += d.length;
      continue;
    }
    if (c === '[') {
      const close = find(']', i + 1);
      if (close > 0 && s[close + 1] === '(') {
        const paren = find(')', close + 2);
        if (paren > 0) {
          const target = s.slice(close + 2, paren).trim().replace(/^<(.*)>$/, '$1');
          const label = s.slice(i + 1, close);
          const href = safeHref(target);
          flush();
          if (href) out.push({ t: 'link', href, children: parseInline(label, depth + 1) });
          else out.push({ t: 'text', text: s.slice(i, paren + 1) });
          i = paren + 1;
          continue;
        }
      }
      text += c;
      i++;
      continue;
    }
    if (c === '<') {
      const close = find('>', i + 1);
      if (close > 0) {
        const target = s.slice(i + 1, close);
        const href = safeHref(target);
        if (href) {
          flush();
          out.push({ t: 'link', href, children: [{ t: 'text', text: target }] });
          i = close + 1;
          continue;
        }
      }
      text += c;
      i++;
      continue;
    }
    text += c;
    i++;
  }
  flush();
  return out;
}

/** The text of a tree of inline spans, for tests and titles. */
export function inlineText(spans: Inline[]): string {
  return spans.map((x) => (x.t === 'text' || x.t === 'code' ? x.text : x.t === 'br' ? '\n' : inlineText(x.children))).join('');
}
