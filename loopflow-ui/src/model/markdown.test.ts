import { describe, expect, it } from 'vitest';
import { MD_MAX_CHARS, inlineText, mayBeMarkdown, parseInline, parseMarkdown, safeHref, type Block, type Inline } from './markdown';

function links(blocks: Block[]): string[] {
  const out: string[] = [];
  const inl = (xs: Inline[]) => {
    for (const x of xs) {
      if (x.t === 'link') out.push(x.href);
      if (x.t === 'em' || x.t === 'strong' || x.t === 'link') inl(x.children);
    }
  };
  const walk = (bs: Block[]) => {
    for (const b of bs) {
      if (b.t === 'h' || b.t === 'p') inl(b.children);
      if (b.t === 'quote') walk(b.children);
      if (b.t === 'list') b.items.forEach(walk);
      if (b.t === 'table') [b.head, ...b.rows].flat().forEach(inl);
    }
  };
  walk(blocks);
  return out;
}

describe('markdown blocks', () => {
  it('reads headings, paragraphs, lists, quotes, fences, rules and tables', () => {
    const doc = parseMarkdown(
      '# Title #\n\nSome *em* and **strong** and `code`.\n\n- one\n- two\n  - nested\n\n3. three\n4. four\n\n> quoted\n> more\n\n```js\nlet x = 1 < 2;\n```\n\n---\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n',
    );
    expect(doc.cut).toBe(0);
    expect(doc.blocks.map((b) => b.t)).toEqual(['h', 'p', 'list', 'list', 'quote', 'code', 'hr', 'table']);
    const h = doc.blocks[0] as Extract<Block, { t: 'h' }>;
    expect(inlineText(h.children)).toBe('Title');
    const p = doc.blocks[1] as Extract<Block, { t: 'p' }>;
    expect(p.children.map((x) => x.t)).toEqual(['text', 'em', 'text', 'strong', 'text', 'code', 'text']);
    const ul = doc.blocks[2] as Extract<Block, { t: 'list' }>;
    expect(ul.items).toHaveLength(2);
    expect(ul.items[1]?.map((b) => b.t)).toEqual(['p', 'list']);
    const ol = doc.blocks[3] as Extract<Block, { t: 'list' }>;
    expect(ol).toMatchObject({ ordered: true, start: 3 });
    expect(doc.blocks[5]).toEqual({ t: 'code', lang: 'js', text: 'let x = 1 < 2;' });
    const table = doc.blocks[7] as Extract<Block, { t: 'table' }>;
    expect(table.rows).toHaveLength(1);
  });

  it('keeps raw HTML as text', () => {
    const doc = parseMarkdown('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>');
    expect(doc.blocks).toEqual([
      { t: 'p', children: [{ t: 'text', text: '<script>alert(1)</script>' }] },
      { t: 'p', children: [{ t: 'text', text: '<img src=x onerror=alert(1)>' }] },
    ]);
  });

  it('runs an unclosed fence to the end of the text', () => {
    const doc = parseMarkdown('before\n\n```\ncode *not em*\n[x](https://a.example)');
    expect(doc.blocks[1]).toEqual({ t: 'code', lang: '', text: 'code *not em*\n[x](https://a.example)' });
  });

  it('reads at most MD_MAX_CHARS characters and says how many it left', () => {
    const big = 'word '.repeat(220_000); // 1.1 MB
    const doc = parseMarkdown(big);
    expect(doc.cut).toBe(big.length - MD_MAX_CHARS);
  });

  it('stops nesting quotes and lists at a bounded depth, the rest as text', () => {
    const doc = parseMarkdown('>'.repeat(5000) + ' deep');
    let depth = 0;
    let b: Block | undefined = doc.blocks[0];
    while (b && b.t === 'quote') {
      depth++;
      b = b.children[0];
    }
    expect(depth).toBeLessThanOrEqual(10);
    expect(b?.t).toBe('p');
    const list = parseMarkdown(Array.from({ length: 200 }, (_, i) => ' '.repeat(i * 2) + '- x').join('\n'));
    expect(list.blocks).toHaveLength(1);
  });
});

describe('markdown links', () => {
  it('keeps http, https and mailto', () => {
    expect(links(parseMarkdown('[a](https://example.com/x?y=1) [b](http://example.com) [c](mailto:me@example.com) <https://auto.example>').blocks)).toEqual([
      'https://example.com/x?y=1',
      'http://example.com',
      'mailto:me@example.com',
      'https://auto.example',
    ]);
  });

  const hostile = [
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    '\tjavascript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    'java\u0000script:alert(1)',
    '\u0001javascript:alert(1)',
    '&#106;avascript:alert(1)',
    '&#x6A;avascript:alert(1)',
    'javascript&colon;alert(1)',
    'jav&#x09;ascript:alert(1)',
    '%6Aavascript:alert(1)',
    'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'DATA:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    '//evil.example/x',
    '/relative',
    'https://ok.example/ onmouseover=alert(1)',
    'https:\\\\evil.example',
    '',
  ];
  it.each(hostile)('refuses %j and shows it as text', (href) => {
    expect(safeHref(href)).toBeUndefined();
    const doc = parseMarkdown(`[click](${href}) and <${href}>`);
    expect(links(doc.blocks)).toEqual([]);
  });

  it('never turns text into an attribute or an event handler', () => {
    const spans = parseInline('[x" onclick="alert(1)](https://a.example) **<b onmouseover=alert(1)>**');
    expect(spans[0]).toMatchObject({ t: 'link', href: 'https://a.example' });
    expect(inlineText(spans)).toBe('x" onclick="alert(1) <b onmouseover=alert(1)>');
  });
});

describe('markdown bombs', () => {
  it.each([
    ['nested emphasis', '*'.repeat(20_000) + 'a' + '*'.repeat(20_000)],
    ['alternating emphasis', '*_'.repeat(25_000)],
    ['unclosed strong', '**a '.repeat(12_000)],
    ['unclosed links', '[a]('.repeat(12_000)],
    ['brackets', '['.repeat(25_000) + ']'.repeat(25_000)],
    ['backticks', '`a'.repeat(25_000)],
    ['long heading', '# ' + '# '.repeat(24_000) + 'x'],
    ['many list items', '- a\n'.repeat(12_000)],
    ['rule look-alike', '- '.repeat(24_000) + 'x'],
  ])('%s: returns, bounded', (_, text) => {
    const doc = parseMarkdown(text);
    expect(doc.blocks.length).toBeGreaterThan(0);
  });

  it('nests emphasis at most a few levels deep', () => {
    const doc = parseMarkdown('*a _b *c _d *e _f *g* f_ e* d_ c* b_ a*');
    let depth = 0;
    let xs: Inline[] = (doc.blocks[0] as Extract<Block, { t: 'p' }>).children;
    for (;;) {
      const inner = xs.find((x) => x.t === 'em' || x.t === 'strong');
      if (!inner || !('children' in inner)) break;
      depth++;
      xs = inner.children;
    }
    expect(depth).toBeLessThanOrEqual(5);
  });
});

describe('markdown offered', () => {
  it.each([
    ['outer 2 inner 2', false],
    ['batch 1 migrated', false],
    ['3.5 apples, -2 pears', false],
    ['**bold**', true],
    ['# title', true],
    ['- item', true],
    ['1. first', true],
    ['two\nlines', true],
    ['see [x](https://a.example)', true],
    ['<img src=x>', true],
  ])('%j: %s', (text, expected) => {
    expect(mayBeMarkdown(text)).toBe(expected);
  });
});
