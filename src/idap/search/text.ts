import { transliterate } from 'transliteration';
import type { ResourceType } from '../resources/resource.model';

/**
 * The searchable fields of each type (service interface, "IDAP resource") with their weights:
 * a match in a name counts more than one in an address or a headline.
 */
export const SEARCH_FIELDS: Record<ResourceType, Record<string, number>> = {
  businesses: { name: 3, category: 1.5, address: 1 },
  domains: { domain: 3, title: 1.5 },
  contacts: { name: 3, email: 2, title: 1 },
  emails: { address: 1 },
  phones: { number: 1 },
  company_registry: { name: 3, registration_number: 2 },
  linkedin_profiles: { name: 3, company: 2, headline: 1 },
};

/** Fields whose whole digit string is also a term, so `+31 30 123 4567` is found by `31301234567`. */
const DIGIT_FIELDS = new Set(['number', 'registration_number']);

const MAX_TERM_LENGTH = 64;

/** A value of `data` as text: strings and numbers as they are, arrays and objects by their leaves. */
export function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(textOf).join(' ');
  if (typeof value === 'object') return Object.values(value).map(textOf).join(' ');
  return '';
}

/**
 * Normalised terms in order: transliterated to ASCII (accents folded, `ß` → `ss`, Cyrillic spelled
 * out), lower-cased, split on anything that is not a letter or digit. The same function reads both
 * the indexed text and the query, so they always agree.
 */
export function tokenize(text: string): string[] {
  return transliterate(text)
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((t) => t.slice(0, MAX_TERM_LENGTH));
}

export interface FieldTerms {
  field: string;
  /** Terms in order (for phrase matching); the field's length is `terms.length`. */
  terms: string[];
  /** Extra whole-value terms (digit strings) that match but hold no position. */
  extra: string[];
}

/** The searchable text of one resource, field by field. */
export function fieldTerms(type: ResourceType, data: Record<string, unknown>): FieldTerms[] {
  const out: FieldTerms[] = [];
  for (const field of Object.keys(SEARCH_FIELDS[type])) {
    const text = textOf(data?.[field]);
    const terms = tokenize(text);
    if (!terms.length) continue;
    const digits = text.replace(/\D/g, '');
    const extra = DIGIT_FIELDS.has(field) && digits.length > 1 && !terms.includes(digits) ? [digits] : [];
    out.push({ field, terms, extra });
  }
  return out;
}
