import { SEARCHABLE_ATTRIBUTES, valuesAt } from './search-document';

/**
 * The built-in engine's answer to `q`, after Meilisearch's defaults: words are compared without case or
 * accents; the last query word may be a prefix; words of 5+ letters tolerate one typo and 9+ two; with the
 * `last` matching strategy a document matching only the first k words still counts, ranked below those
 * matching more (`all` requires every word).
 */
export const wordsOf = (text: string): string[] =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

function collectText(value: unknown, out: string[]) {
  if (typeof value === 'string') out.push(...wordsOf(value));
  else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (Array.isArray(value)) value.forEach((v) => collectText(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => collectText(v, out));
}

export function documentWords(doc: unknown): Set<string> {
  const out: string[] = [];
  for (const attribute of SEARCHABLE_ATTRIBUTES) valuesAt(doc, attribute).values.forEach((v) => collectText(v, out));
  return new Set(out);
}

const allowedTypos = (word: string) => (word.length >= 9 ? 2 : word.length >= 5 ? 1 : 0);

/** Levenshtein distance, giving up once it exceeds `max`. */
function withinDistance(a: string, b: string, max: number): number | null {
  if (Math.abs(a.length - b.length) > max) return null;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, row[j]);
    }
    if (best > max) return null;
    prev = row;
  }
  return prev[b.length] <= max ? prev[b.length] : null;
}

/** Typos needed for one query word to match the document (null: no match). */
function wordMatch(query: string, isLast: boolean, words: Set<string>): number | null {
  if (words.has(query)) return 0;
  let best: number | null = null;
  const max = allowedTypos(query);
  for (const w of words) {
    if (isLast && w.startsWith(query)) return 0;
    if (max === 0) continue;
    const whole = withinDistance(query, w, max);
    const prefix = isLast && w.length > query.length ? withinDistance(query, w.slice(0, query.length), max) : null;
    for (const d of [whole, prefix]) if (d !== null && (best === null || d < best)) best = d;
  }
  return best;
}

export interface TextScore {
  matchedWords: number;
  typos: number;
}

/**
 * How well a document answers the query words, given the document's words (documentWords; the in-memory index
 * keeps them); null when it does not match at all.
 */
export function scoreWords(queryWords: string[], words: Set<string>, strategy: 'last' | 'all'): TextScore | null {
  if (queryWords.length === 0) return { matchedWords: 0, typos: 0 };
  let typos = 0;
  let matched = 0;
  for (let i = 0; i < queryWords.length; i++) {
    const t = wordMatch(queryWords[i], i === queryWords.length - 1, words);
    if (t === null) break;
    typos += t;
    matched++;
  }
  if (matched === 0 || (strategy === 'all' && matched < queryWords.length)) return null;
  return { matchedWords: matched, typos };
}
