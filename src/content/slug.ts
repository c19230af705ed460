import { slugify } from 'transliteration';
import { AppError } from '../lib/errors';
import { trimEndWhere } from '../lib/trim';

export const SLUG_MAX = 120;

/**
 * A URL slug from any text. Non-Latin scripts are transliterated by the `transliteration` package
 * ("Привет мир" → "privet-mir", "你好" → "ni-hao"); the result is cut at a word boundary to SLUG_MAX.
 */
export function slugFrom(text: string): string {
  const slug = slugify(text, { lowercase: true, separator: '-', allowedChars: 'a-zA-Z0-9', trim: true });
  if (slug.length <= SLUG_MAX) return slug;
  const cut = slug.slice(0, SLUG_MAX + 1);
  const boundary = cut.lastIndexOf('-');
  return trimEndWhere(boundary > 0 ? cut.slice(0, boundary) : cut.slice(0, SLUG_MAX), (c) => c === '-');
}

/** The slug to store: the one given, or one derived from `source` (named `field` in the error). */
export function slugOrDerived(given: string | undefined | null, source: string, field: string): string {
  if (given) return given;
  const derived = slugFrom(source);
  if (!derived) throw AppError.badRequest(`Cannot derive a slug from ${field}; send a slug`);
  return derived;
}
