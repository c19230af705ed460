import { AppError } from '../../src/lib/errors';
import { renderHtml, safeUrl } from '../../src/content/render-html';
import {
  countWords,
  deriveExcerpt,
  excerptSource,
  plainText,
  readingTime,
  validateRichText,
  type RichTextNode,
} from '../../src/content/rich-text';
import { slugFrom } from '../../src/content/slug';

const p = (...content: RichTextNode[]): RichTextNode => ({ type: 'paragraph', content });
const t = (text: string, marks?: RichTextNode['marks']): RichTextNode => ({
  type: 'text',
  text,
  ...(marks ? { marks } : {}),
});
const d = (...content: RichTextNode[]): RichTextNode => ({ type: 'doc', content });

describe('rich-text bodies', () => {
  it('accepts a well-formed tree and rejects bad shapes with 400 naming the path', () => {
    expect(validateRichText(d(p(t('hi'))))).toEqual(d(p(t('hi'))));
    const cases: [unknown, RegExp][] = [
      [null, /must be an object/],
      [{ type: 'paragraph', content: [] }, /"doc"/],
      [{ type: 'doc' }, /content/],
      [d({ type: '' } as RichTextNode), /content\[0\]\.type/],
      [d({ type: 'p', attrs: [] } as unknown as RichTextNode), /attrs/],
      [d({ type: 'text', text: 1 } as unknown as RichTextNode), /text must be a string/],
      [
        d({ type: 'text', text: 'x', marks: [{ type: 'bold', extra: 1 }] } as unknown as RichTextNode),
        /unknown field "extra"/,
      ],
      [d({ type: 'p', content: {} } as unknown as RichTextNode), /content must be an array/],
    ];
    for (const [body, message] of cases) {
      let error: unknown;
      try {
        validateRichText(body);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(400);
      expect((error as AppError).detail).toMatch(message);
    }
  });

  it('bounds depth and size', () => {
    let deep: RichTextNode = t('x');
    for (let i = 0; i < 33; i++) deep = { type: 'blockquote', content: [deep] };
    expect(() => validateRichText(d(deep))).toThrow(/deeper than 32/);
    const many = d(...Array.from({ length: 20_001 }, () => t('x')));
    expect(() => validateRichText(many)).toThrow(/more than 20000 nodes/);
    expect(() => validateRichText(d(t('x'.repeat(500_001))))).toThrow(/characters of text/);
  });

  it('computes text, words at 200 per minute and an excerpt', () => {
    const body = d(
      { type: 'heading', content: [t('Title')] },
      p(t('Hello '), t('world', [{ type: 'bold' }]), { type: 'hardBreak' }, t('again')),
    );
    expect(plainText(body)).toBe('Title\n\nHello world\nagain');
    expect(countWords('Hello, world! 你好世界')).toBeGreaterThanOrEqual(4);
    expect(readingTime('')).toBe(1);
    expect(readingTime(Array(200).fill('w').join(' '))).toBe(1);
    expect(readingTime(Array(201).fill('w').join(' '))).toBe(2);
    expect(deriveExcerpt('  short   text ')).toBe('short text');
    expect(excerptSource(body)).toBe('Hello world\nagain'); // paragraphs only: the heading is left out
    expect(excerptSource(d({ type: 'heading', content: [t('Only a heading')] }))).toBe('Only a heading');
    expect(deriveExcerpt('')).toBeNull();
    const long = deriveExcerpt(Array(100).fill('word').join(' '))!;
    expect(long.endsWith('word…')).toBe(true);
    expect(long.length).toBeLessThanOrEqual(201);
  });
});

describe('the HTML renderer', () => {
  it('renders the common nodes and marks', () => {
    const html = renderHtml(
      d(
        { type: 'heading', attrs: { level: 9 }, content: [t('H')] },
        {
          type: 'bulletList',
          content: [{ type: 'listItem', content: [p(t('one', [{ type: 'italic' }, { type: 'code' }]))] }],
        },
        { type: 'orderedList', attrs: { start: 3 }, content: [{ type: 'listItem', content: [p(t('three'))] }] },
        { type: 'codeBlock', attrs: { language: 'ts"><script>' }, content: [t('a < b')] },
        { type: 'codeBlock', attrs: { language: 'ts' }, content: [t('x')] },
        { type: 'blockquote', content: [p(t('q'))] },
        { type: 'horizontalRule' },
      ),
    );
    expect(html).toBe(
      '<h2>H</h2><ul><li><p><code><em>one</em></code></p></li></ul><ol start="3"><li><p>three</p></li></ol>' +
        '<pre><code>a &lt; b</code></pre><pre><code class="language-ts">x</code></pre>' +
        '<blockquote><p>q</p></blockquote><hr>',
    );
  });

  it('allows only safe URL schemes in links and images, and escapes attributes', () => {
    for (const bad of [
      'javascript:alert(1)',
      ' JaVaScRiPt:alert(1)',
      'java\tscript:alert(1)',
      'vbscript:x',
      'data:text/html,<b>',
      'file:///etc/passwd',
    ]) {
      expect({ bad, url: safeUrl(bad, new Set(['http:', 'https:', 'mailto:'])) }).toEqual({ bad, url: null });
    }
    for (const good of [
      'https://a.example/x?y=1',
      'http://a.example',
      'mailto:me@a.example',
      '/relative',
      '#anchor',
      '//cdn.example/x',
    ]) {
      expect(safeUrl(good, new Set(['http:', 'https:', 'mailto:']))).toBe(good);
    }
    expect(renderHtml({ type: 'link', attrs: { href: 'https://x.example/"onmouseover="x' }, content: [t('l')] })).toBe(
      '<a href="https://x.example/&quot;onmouseover=&quot;x" rel="noopener noreferrer nofollow">l</a>',
    );
    expect(renderHtml({ type: 'image', attrs: { src: 'javascript:x' } })).toBe('');
    expect(renderHtml(t('<img src=x onerror=alert(1)>'))).toBe('&lt;img src=x onerror=alert(1)&gt;');
  });
});

describe('slugs and ETags', () => {
  it('transliterates, lower-cases, joins with hyphens and cuts at a word boundary', () => {
    expect(slugFrom('Привет, мир!')).toBe('privet-mir');
    expect(slugFrom('  --Hello__World--  ')).toBe('hello-world');
    expect(slugFrom('🎉')).toBe('');
    const long = slugFrom(Array(40).fill('segment').join(' '));
    expect(long.length).toBeLessThanOrEqual(120);
    expect(long).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
    expect(long.endsWith('segment')).toBe(true);
  });
});
