import { escapeHtml } from '../lib/html';
import type { RichTextMark, RichTextNode } from './rich-text';

/**
 * Renders a validated rich-text document to HTML that is safe to insert into a page: every text and
 * attribute value is escaped, only known node and mark types produce tags (anything else renders
 * its children only), and link and image URLs must use an allowed scheme (or be relative).
 */
const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:', 'tel:']);
const IMAGE_SCHEMES = new Set(['http:', 'https:']);

/**
 * A URL that is safe in href/src, or null: absolute with an allowed scheme, or relative (/path, #anchor, ./x,
 * //host).
 */
export function safeUrl(value: unknown, schemes: Set<string>): string | null {
  if (typeof value !== 'string') return null;
  // Browsers ignore control characters and whitespace inside a scheme ("java\tscript:"), so test without them.
  const url = value.trim();
  const compact = [...url]
    .filter((c) => c.charCodeAt(0) > 0x20 && (c.charCodeAt(0) < 0x7f || c.charCodeAt(0) > 0x9f))
    .join('');
  if (!compact || url.length > 2048) return null;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(compact);
  if (!scheme) return url; // relative: /path, #anchor, //host (inherits http or https)
  return schemes.has(`${scheme[1].toLowerCase()}:`) ? url : null;
}

const attr = (name: string, value: unknown): string =>
  value === undefined || value === null || value === '' ? '' : ` ${name}="${escapeHtml(String(value))}"`;

const SIMPLE_BLOCKS: Record<string, string> = {
  paragraph: 'p',
  blockquote: 'blockquote',
  bulletList: 'ul',
  bullet_list: 'ul',
  listItem: 'li',
  list_item: 'li',
  table: 'table',
  tableRow: 'tr',
  table_row: 'tr',
  tableCell: 'td',
  table_cell: 'td',
  tableHeader: 'th',
  table_header: 'th',
};
const SIMPLE_MARKS: Record<string, string> = {
  bold: 'strong',
  strong: 'strong',
  italic: 'em',
  em: 'em',
  code: 'code',
  strike: 's',
  underline: 'u',
  subscript: 'sub',
  superscript: 'sup',
  highlight: 'mark',
};

function wrapMark(html: string, mark: RichTextMark): string {
  const tag = SIMPLE_MARKS[mark.type];
  if (tag) return `<${tag}>${html}</${tag}>`;
  if (mark.type === 'link') return link(html, mark.attrs);
  return html;
}

function link(inner: string, attrs: Record<string, unknown> | undefined): string {
  const href = safeUrl(attrs?.href, LINK_SCHEMES);
  if (!href) return inner;
  return `<a href="${escapeHtml(href)}"${attr('title', attrs?.title)} rel="noopener noreferrer nofollow">${inner}</a>`;
}

function image(attrs: Record<string, unknown> | undefined): string {
  const src = safeUrl(attrs?.src, IMAGE_SCHEMES);
  if (!src) return '';
  return `<img src="${escapeHtml(src)}"${attr('alt', attrs?.alt ?? '')}${attr('title', attrs?.title)} loading="lazy">`;
}

function headingLevel(attrs: Record<string, unknown> | undefined): number {
  const level = Number(attrs?.level);
  return Number.isInteger(level) && level >= 1 && level <= 6 ? level : 2;
}

export function renderHtml(node: RichTextNode): string {
  const inner = (): string =>
    (node.text !== undefined && node.type !== 'text' ? escapeHtml(node.text) : '') +
    (node.content ?? []).map(renderHtml).join('');
  switch (node.type) {
    case 'doc':
      return inner();
    case 'text':
      return (node.marks ?? []).reduce(wrapMark, escapeHtml(node.text ?? ''));
    case 'heading': {
      const level = headingLevel(node.attrs);
      return `<h${level}>${inner()}</h${level}>`;
    }
    case 'orderedList':
    case 'ordered_list': {
      const start = Number(node.attrs?.start ?? node.attrs?.order);
      return `<ol${Number.isInteger(start) && start !== 1 ? attr('start', start) : ''}>${inner()}</ol>`;
    }
    case 'codeBlock':
    case 'code_block': {
      const language =
        typeof node.attrs?.language === 'string' && /^[\w+-]{1,32}$/.test(node.attrs.language)
          ? node.attrs.language
          : null;
      return `<pre><code${language ? attr('class', `language-${language}`) : ''}>${inner()}</code></pre>`;
    }
    case 'horizontalRule':
    case 'horizontal_rule':
      return '<hr>';
    case 'hardBreak':
    case 'hard_break':
      return '<br>';
    case 'image':
      return image(node.attrs);
    case 'link':
      return link(inner(), node.attrs);
    default: {
      const tag = SIMPLE_BLOCKS[node.type];
      return tag ? `<${tag}>${inner()}</${tag}>` : inner();
    }
  }
}
