import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { JsonTree } from './JsonTree';
import { Markdown } from './Markdown';

const html = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));

describe('Markdown component', () => {
  it('renders markup as React elements and links safely', () => {
    const out = html('# Hi\n\n**bold** [site](https://example.com) [bad](javascript:alert(1))');
    expect(out).toContain('<h1>Hi</h1>');
    expect(out).toContain('<strong>bold</strong>');
    expect(out).toContain('<a href="https://example.com" target="_blank" rel="noopener noreferrer">site</a>');
    expect(out).toContain('[bad](javascript:alert(1))');
    expect(out).not.toContain('href="javascript');
  });

  it.each([
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '<svg onload=alert(1)>',
    '<a href="javascript:alert(1)">x</a>',
    '[x](JaVaScRiPt:alert(1))',
    '[x](&#106;avascript:alert(1))',
    '[x](data:text/html,<script>alert(1)</script>)',
    '<iframe src=javascript:alert(1)>',
    '```\n<script>alert(1)</script>',
    '> <style>body{display:none}</style>',
    '| <b onmouseover=alert(1)> | x |\n|---|---|\n| <script> | y |',
  ])('%j stays text', (text) => {
    const out = html(text);
    expect(out).not.toMatch(/<(script|img|svg|iframe|style|b)[\s>]/i);
    expect(out).not.toMatch(/<[a-z][^>]*\son\w+=/i);
    expect(out).not.toMatch(/href="(?!https?:|mailto:)/i);
  });

  it('says when it cut the text', () => {
    expect(html('x'.repeat(60_000))).toContain('Truncated: the last 10,000 characters are not rendered');
  });
});

describe('JsonTree component', () => {
  it('renders keys and values as text, folds deeper nodes and pages big arrays', () => {
    const out = renderToStaticMarkup(
      createElement(JsonTree, { value: { '<img src=x onerror=alert(1)>': '<script>x</script>', list: Array.from({ length: 250 }, (_, i) => i), deep: { a: { b: 1 } } } }),
    );
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(out).toContain('&quot;&lt;script&gt;x&lt;/script&gt;&quot;');
    expect(out).toContain('[250 items]');
    expect(out).toContain('{1 key}');
    expect(out).not.toMatch(/<(script|img)[\s>]/i);
  });
});
