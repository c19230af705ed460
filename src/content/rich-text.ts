import { checkFreeForm } from '../lib/http/free-form';
import { AppError } from '../lib/errors';
import { oneOf, trimEndWhere } from '../lib/trim';

/**
 * The post body: a rich-text node tree (ProseMirror/TipTap style). The root is `{type: "doc",
 * content: [...]}`; every node has a `type`, and optionally `attrs` (object), `content` (nodes),
 * `text` (string) and `marks` (`[{type, attrs?}]`, the editors' way to carry bold, italic, links).
 */
export interface RichTextMark {
  type: string;
  attrs?: Record<string, unknown>;
}

export interface RichTextNode {
  type: string;
  attrs?: Record<string, unknown>;
  content?: RichTextNode[];
  text?: string;
  marks?: RichTextMark[];
}

export const RICH_TEXT_LIMITS = { maxDepth: 32, maxNodes: 20_000, maxTextChars: 500_000 } as const;
/** Reading speed used for `reading_time` (minutes, rounded up). */
export const WORDS_PER_MINUTE = 200;
export const EXCERPT_MAX_CHARS = 200;

const TYPE_NAME = /^[A-Z][\w-]{0,63}$/i;
const NODE_KEYS = new Set(['type', 'attrs', 'content', 'text', 'marks']);
const MARK_KEYS = new Set(['type', 'attrs']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(path: string, message: string): never {
  throw AppError.badRequest(`Invalid body: ${path} ${message}`, {
    errors: [{ location: 'body', field: `body${path}`, message }],
  });
}

function checkType(value: Record<string, unknown>, keys: Set<string>, path: string): void {
  for (const key of Object.keys(value)) if (!keys.has(key)) fail(path, `has an unknown field "${key}"`);
  if (typeof value.type !== 'string' || !TYPE_NAME.test(value.type))
    fail(`${path}.type`, 'must be a node type name (letters, digits, _ or -)');
  if (value.attrs !== undefined && !isObject(value.attrs)) fail(`${path}.attrs`, 'must be an object');
  if (value.attrs !== undefined) checkFreeForm(value.attrs, `body${path}.attrs`, { status: 400 });
}

/** Checks a body is a well-formed, bounded node tree; answers 400 naming the first offending path otherwise. */
export function validateRichText(body: unknown): RichTextNode {
  if (!isObject(body)) fail('', 'must be an object');
  if (body.type !== 'doc') fail('.type', 'must be "doc" at the root');
  if (!Array.isArray(body.content)) fail('.content', 'must be an array at the root');
  let nodes = 0;
  let chars = 0;
  const visit = (node: unknown, path: string, depth: number): void => {
    if (depth > RICH_TEXT_LIMITS.maxDepth) fail(path, `is nested deeper than ${RICH_TEXT_LIMITS.maxDepth} levels`);
    if (++nodes > RICH_TEXT_LIMITS.maxNodes) fail('', `has more than ${RICH_TEXT_LIMITS.maxNodes} nodes`);
    if (!isObject(node)) fail(path, 'must be an object');
    checkType(node, NODE_KEYS, path);
    if (node.text !== undefined) {
      if (typeof node.text !== 'string') fail(`${path}.text`, 'must be a string');
      chars += node.text.length;
      if (chars > RICH_TEXT_LIMITS.maxTextChars)
        fail('', `has more than ${RICH_TEXT_LIMITS.maxTextChars} characters of text`);
    }
    if (node.marks !== undefined) {
      if (!Array.isArray(node.marks)) fail(`${path}.marks`, 'must be an array');
      node.marks.forEach((mark, i) => {
        if (!isObject(mark)) fail(`${path}.marks[${i}]`, 'must be an object');
        checkType(mark, MARK_KEYS, `${path}.marks[${i}]`);
      });
    }
    if (node.content !== undefined) {
      if (!Array.isArray(node.content)) fail(`${path}.content`, 'must be an array');
      node.content.forEach((child, i) => visit(child, `${path}.content[${i}]`, depth + 1));
    }
  };
  visit(body, '', 0);
  return body as unknown as RichTextNode;
}

/** Block-level node types: their text is separated from the next block's. */
const INLINE = new Set(['text', 'hardBreak', 'hard_break', 'mention', 'emoji']);

/** The readable text of a document, blocks separated by blank lines. */
export function plainText(node: RichTextNode): string {
  if (typeof node.text === 'string' && !node.content) return node.text;
  if (node.type === 'hardBreak' || node.type === 'hard_break') return '\n';
  const parts = (node.content ?? []).map(plainText);
  const joined = (node.content ?? []).every((c) => INLINE.has(c.type))
    ? parts.join('')
    : parts.filter(Boolean).join('\n\n');
  return typeof node.text === 'string' ? `${node.text}${joined}` : joined;
}

const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/** Words in a text; Intl.Segmenter also counts words in scripts written without spaces (Chinese, Japanese, Thai). */
export function countWords(text: string): number {
  let words = 0;
  for (const segment of wordSegmenter.segment(text)) if (segment.isWordLike) words++;
  return words;
}

/** Minutes to read at WORDS_PER_MINUTE, rounded up, at least 1. */
export function readingTime(text: string): number {
  return Math.max(1, Math.ceil(countWords(text) / WORDS_PER_MINUTE));
}

/**
 * The text an excerpt is taken from: the paragraphs (headings, captions and code left out), or all text without
 * any.
 */
export function excerptSource(doc: RichTextNode): string {
  const paragraphs: string[] = [];
  const visit = (node: RichTextNode) => {
    if (node.type === 'paragraph') paragraphs.push(plainText(node));
    else if (node.type !== 'codeBlock' && node.type !== 'code_block') node.content?.forEach(visit);
  };
  visit(doc);
  const text = paragraphs.filter((p) => p.trim()).join(' ');
  return text.trim() ? text : plainText(doc);
}

const EXCERPT_END = oneOf(/[\s.,;:!?-]/);

/** An excerpt from the body's text: its first EXCERPT_MAX_CHARS characters, cut at a word, with an ellipsis. */
export function deriveExcerpt(text: string): string | null {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return null;
  if (flat.length <= EXCERPT_MAX_CHARS) return flat;
  const cut = flat.slice(0, EXCERPT_MAX_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${trimEndWhere(space > EXCERPT_MAX_CHARS / 2 ? cut.slice(0, space) : cut, EXCERPT_END)}…`;
}
