import { normalizePhone } from '../idap/resource-writes';
import { MAX_PAGE_BYTES } from '../providers/research';
import { oneOf, trimEndWhere } from '../lib/trim';

/** What one company web page (or several, merged) tells about the company. */
export interface Extracted {
  title: string | null;
  description: string | null;
  legalName: string | null;
  emails: string[];
  phones: string[];
  people: { name: string; title: string | null; email: string | null; linkedin: string | null }[];
  linkedin: { url: string; kind: 'person' | 'company' }[];
  registrationNumber: string | null;
  /** Same-site pages worth reading too (team, about, contact...). */
  links: string[];
}

/**
 * The most of a page that is read, in characters (the provider reads at most as many bytes): a company website
 * is hostile input, so everything below (each pattern and scanner is linear in its input) runs on at most this.
 */
export const MAX_PAGE_CHARS = MAX_PAGE_BYTES;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©' };
/** A numeric reference past the last code point (String.fromCodePoint would throw) stays as written. */
const codePoint = (m: string, n: number) => (n <= 0x10ffff ? String.fromCodePoint(n) : m);
const decode = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) =>
    e[0] === '#'
      ? codePoint(m, e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
      : (ENTITIES[e.toLowerCase()] ?? m),
  );

/*
 * Hand-written scanners instead of patterns such as `<[^>]+>`, `<script[^>]*>[\s\S]*?<\/script>` or an e-mail
 * pattern with a repeated local part: on a page without the closing character those restart at every
 * opening and scan to the end each time (quadratic). The scanners below move forward only; the regular
 * expressions they use are literal searches (`find`) or match single characters.
 */

/** Where `literal` (a global, case-insensitive regexp of a fixed string) next occurs at or after `from`, or -1. */
function find(html: string, literal: RegExp, from: number): number {
  literal.lastIndex = from;
  return literal.exec(html)?.index ?? -1;
}

const END_TAG: Record<string, RegExp> = { script: /<\/script>/gi, style: /<\/style>/gi, title: /<\/title>/gi };
const RAW_TEXT_ELEMENT = /^(script|style)/i;

/**
 * The text a reader sees: tags (`<` up to the next `>`, as `<[^>]+>`) and script and style elements with their
 * content become spaces, entities are decoded and white space is collapsed. A `<` with no `>` after it, and
 * what follows, is text; a script or style without its end tag loses only its opening tag.
 */
function textOf(html: string): string {
  const parts: string[] = [];
  const endMissing = new Set<string>(); // once an end tag is not found, it is not found later either
  let textFrom = 0;
  for (let lt = html.indexOf('<'); lt >= 0; lt = html.indexOf('<', lt + 1)) {
    const gt = html.indexOf('>', lt + 1);
    if (gt < 0) break;
    if (gt === lt + 1) continue; // `<>` is text
    parts.push(html.slice(textFrom, lt), ' ');
    textFrom = gt + 1;
    const raw = RAW_TEXT_ELEMENT.exec(html.slice(lt + 1, lt + 7))?.[1].toLowerCase();
    const end = raw && !endMissing.has(raw) ? find(html, END_TAG[raw], gt + 1) : -1;
    if (raw && end < 0) endMissing.add(raw);
    if (end >= 0) textFrom = end + raw!.length + 3;
    lt = textFrom - 1;
  }
  parts.push(html.slice(textFrom));
  return decode(parts.join('')).replace(/\s+/g, ' ').trim();
}

/** The content of the first `<name ...>...</name>` element (title), or null. */
function firstElementContent(html: string, opening: RegExp, name: keyof typeof END_TAG): string | null {
  const at = find(html, opening, 0);
  const gt = at < 0 ? -1 : html.indexOf('>', at);
  const end = gt < 0 ? -1 : find(html, END_TAG[name], gt + 1);
  return end < 0 ? null : html.slice(gt + 1, end);
}

const LOCAL_CHAR = /[\w.%+-]/;
const LABEL_CHAR = /[A-Z0-9-]/i;
const LETTER = /[A-Z]/i;

/**
 * Where an e-mail domain starting at `from` ends, or -1: labels of [A-Za-z0-9-] separated by dots, the last
 * one used starting with two letters or more (it ends after them), as far right as possible.
 */
function domainEnd(text: string, from: number): number {
  let end = -1;
  for (let i = from; ; i++) {
    const label = i;
    while (i < text.length && LABEL_CHAR.test(text[i])) i++;
    if (i === label) break;
    let letters = label;
    while (letters < i && LETTER.test(text[letters])) letters++;
    if (label > from && letters - label >= 2) end = letters;
    if (text[i] !== '.') break;
  }
  return end;
}

/**
 * E-mail addresses in text, as `[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}` would find
 * them, in one pass: from each `@`, the local part is read back to the previous address or a character it
 * cannot hold (never past the previous `@`), and the domain forward (never past the next `@`).
 */
function emailsIn(text: string): string[] {
  const found: string[] = [];
  let taken = 0; // the end of the previous address: addresses do not overlap
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > taken && LOCAL_CHAR.test(text[start - 1])) start--;
    const end = start < at ? domainEnd(text, at + 1) : -1;
    if (end < 0) continue;
    found.push(text.slice(start, end));
    taken = end;
  }
  return found;
}

const PHONE = /\+\d{1,3}[\s.-]?(?:\(\d{1,4}\)[\s.-]?)?\d{1,4}(?:[\s.-]?\d{2,4}){1,4}/g;
const LINKEDIN = /https?:\/\/(?:[a-z]{2,3}\.)?linkedin\.com\/(in|company)\/([\w%-]+)/gi;
/** The words that introduce a company's registration number, in the languages of the sites researched. */
const REGISTRY_LABELS = [
  /registration\s+(?:no\.?|number)/,
  /company\s+(?:no\.?|number|registration)/,
  /chamber\s+of\s+commerce(?:\s+(?:no\.?|number))?/,
  /kvk(?:-nummer|\s+no\.?|\s+number)?/,
  /crn|handelsregister|hrb|siren/,
  /registry\s+(?:no\.?|number)/,
];
const REGISTRY_NUMBER = /\s*(?:[:#]\s*)?([A-Z]{0,3}[ -]?\d[\d .-]{3,16}\d)/;
const REGISTRY = new RegExp(`(?:${REGISTRY_LABELS.map((r) => r.source).join('|')})${REGISTRY_NUMBER.source}`, 'i');
/** The registration number a page's text gives after one of the registry labels, or null. */
function registryNumberIn(text: string): string | null {
  const found = REGISTRY.exec(text)?.[1];
  return found ? trimEndWhere(found, oneOf(/[\s.-]/)).trim() : null;
}
const LEGAL_FORM =
  /©\s*(?:\d{4}\s+)?([A-Z][^©<>|]{1,80}?\s(?:B\.V\.|N\.V\.|GmbH|Ltd\.?|LLC|Inc\.?|S\.A\.|SAS|AG|AB|BV|NV))/;
const FOLLOW = /team|about|contact|people|leadership|management|impressum|imprint|over-ons|kontakt/i;

const linkedinUrl = (kind: string, handle: string) => `https://www.linkedin.com/${kind.toLowerCase()}/${handle}`;
const plausibleEmail = (e: string) => !/\.(?:png|jpe?g|gif|svg|webp)$/i.test(e) && !/^(?:example|test)@/i.test(e);

/** The content of every `<script ... application/ld+json ...>` element, in order. */
function jsonLdBlocks(html: string): string[] {
  const blocks: string[] = [];
  const opening = /<script/gi;
  for (let at = find(html, opening, 0); at >= 0; at = find(html, opening, at)) {
    const gt = html.indexOf('>', at + 7);
    if (gt < 0) break;
    const attributes = html.slice(at + 8, gt); // at least one character after `<script`, as `<script[^>]+`
    at = gt + 1;
    if (!/application\/ld\+json/i.test(attributes)) continue;
    const end = find(html, END_TAG.script, gt + 1);
    if (end < 0) break;
    blocks.push(html.slice(gt + 1, end));
    at = end + '</script>'.length;
  }
  return blocks;
}

function jsonLdObjects(html: string): any[] {
  const out: any[] = [];
  for (const block of jsonLdBlocks(html)) {
    try {
      const walk = (v: any) => {
        if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object') {
          out.push(v);
          for (const child of Object.values(v)) if (child && typeof child === 'object') walk(child);
        }
      };
      walk(JSON.parse(block));
    } catch {
      /* a broken JSON-LD block is ignored */
    }
  }
  return out;
}

/**
 * The description of the first `<meta>` tag that has `name="description"` and, after it, `content="..."`.
 * A tag runs to the next `>` (to the end of the page when none follows, where the search then stops).
 */
function metaDescription(html: string): string | null {
  const opening = /<meta/gi;
  for (let at = find(html, opening, 0); at >= 0; at = find(html, opening, at)) {
    const gt = html.indexOf('>', at);
    const tag = html.slice(at + 5, gt < 0 ? html.length : gt);
    const name = /name=["']description["']/i.exec(tag);
    const content =
      name && name.index > 0 ? /content=["']([^"']*)["']/i.exec(tag.slice(name.index + name[0].length + 1)) : null;
    if (content) return content[1];
    if (gt < 0) break;
    at = gt + 1;
  }
  return null;
}

const ITEMPROP = { name: /itemprop="name"/gi, jobTitle: /itemprop="jobTitle"/gi };

/** The text after the tag holding the first `itemprop="<prop>"` of `chunk`, up to the next tag ('' when none). */
function itemprop(chunk: string, prop: keyof typeof ITEMPROP): string {
  const at = find(chunk, ITEMPROP[prop], 0);
  const gt = at < 0 ? -1 : chunk.indexOf('>', at);
  const lt = gt < 0 ? -1 : chunk.indexOf('<', gt + 1);
  return lt < 0 ? '' : chunk.slice(gt + 1, lt);
}

const isType = (o: any, t: string) => o['@type'] === t || (Array.isArray(o['@type']) && o['@type'].includes(t));
const str = (v: unknown) => (typeof v === 'string' && v.trim() ? decode(v.trim()) : null);
const firstLinkedin = (v: unknown) => {
  for (const s of ([] as unknown[]).concat(v ?? [])) {
    const m = typeof s === 'string' ? new RegExp(LINKEDIN.source, 'i').exec(s) : null;
    if (m) return linkedinUrl(m[1], m[2]);
  }
  return null;
};

function people(html: string, ld: any[]): Extracted['people'] {
  const found = ld
    .filter((o) => isType(o, 'Person') && str(o.name))
    .map((o) => ({
      name: str(o.name)!,
      title: str(o.jobTitle),
      email:
        str(o.email)
          ?.replace(/^mailto:/i, '')
          .toLowerCase() ?? null,
      linkedin: firstLinkedin(o.sameAs),
    }));
  const names = new Set(found.map((p) => p.name));
  // Microdata fallback: itemscope blocks of type Person.
  for (const block of html.split(/itemtype="https?:\/\/schema\.org\/Person"/i).slice(1)) {
    const chunk = block.split(/itemscope/i)[0];
    const name = str(textOf(itemprop(chunk, 'name')));
    if (!name || names.has(name)) continue;
    names.add(name);
    const mail = /mailto:([^"'?]+)/i.exec(chunk)?.[1];
    found.push({
      name,
      title: str(textOf(itemprop(chunk, 'jobTitle'))),
      email: mail?.toLowerCase() ?? null,
      linkedin: firstLinkedin([chunk]),
    });
  }
  return found;
}

/** A tel: link's number; a malformed percent escape (decodeURIComponent would throw) is kept as written. */
function telNumber(href: string): string {
  try {
    return decodeURIComponent(href.slice(4));
  } catch {
    return href.slice(4);
  }
}

export function extractPage(page: string, pageUrl: string): Extracted {
  const html = page.length > MAX_PAGE_CHARS ? page.slice(0, MAX_PAGE_CHARS) : page;
  const text = textOf(html);
  const ld = jsonLdObjects(html);
  const hrefs = [...html.matchAll(/href\s*=\s*["']([^"']+)["']/gi)].map((m) => decode(m[1]));
  const emails = [
    ...hrefs.filter((h) => /^mailto:/i.test(h)).map((h) => h.slice(7).split('?')[0]),
    ...emailsIn(text),
    ...ld.map((o) => str(o.email)?.replace(/^mailto:/i, '')).filter((e): e is string => Boolean(e)),
  ]
    .map((e) => e.toLowerCase())
    .filter(plausibleEmail);
  const phones = [...hrefs.filter((h) => /^tel:/i.test(h)).map(telNumber), ...(text.match(PHONE) ?? [])];
  const linkedin = [...html.matchAll(LINKEDIN)].map((m) => ({
    url: linkedinUrl(m[1], m[2]),
    kind: (m[1].toLowerCase() === 'in' ? 'person' : 'company') as 'person' | 'company',
  }));
  const org = ld.find((o) => isType(o, 'Organization') || isType(o, 'LocalBusiness') || isType(o, 'Corporation'));
  const base = new URL(pageUrl);
  const links = hrefs.flatMap((h) => {
    try {
      const u = new URL(h, base);
      return u.hostname === base.hostname && /^https?:$/.test(u.protocol) && FOLLOW.test(u.pathname)
        ? [`${u.origin}${u.pathname}`]
        : [];
    } catch {
      return [];
    }
  });
  return {
    title: str(textOf(firstElementContent(html, /<title/gi, 'title') ?? '')),
    description: str(metaDescription(html)) ?? str(org?.description),
    legalName: str(org?.legalName) ?? LEGAL_FORM.exec(text)?.[1]?.trim() ?? str(org?.name),
    emails,
    phones,
    linkedin,
    links,
    people: people(html, ld),
    registrationNumber: str(org?.taxID) ?? str(org?.leiCode) ?? registryNumberIn(text),
  };
}

/** Several pages of one site as one finding, de-duplicated (phones by their normalised number). */
export function mergeExtracted(pages: Extracted[]): Extracted {
  const uniq = <T>(items: T[], key: (t: T) => string) => [...new Map(items.map((i) => [key(i), i] as const)).values()];
  const phones = uniq(
    pages
      .flatMap((p) => p.phones)
      .map((p) => p.trim())
      .filter((p) => normalizePhone(p)),
    (p) => normalizePhone(p)!,
  );
  const people = new Map<string, Extracted['people'][number]>();
  for (const p of pages.flatMap((x) => x.people)) {
    const prev = people.get(p.name);
    people.set(p.name, {
      name: p.name,
      title: prev?.title ?? p.title,
      email: prev?.email ?? p.email,
      linkedin: prev?.linkedin ?? p.linkedin,
    });
  }
  const firstOf = <K extends keyof Extracted>(k: K) => pages.map((p) => p[k]).find((v) => v) ?? null;
  return {
    title: firstOf('title') as string | null,
    description: firstOf('description') as string | null,
    legalName: firstOf('legalName') as string | null,
    registrationNumber: firstOf('registrationNumber') as string | null,
    emails: uniq(
      pages.flatMap((p) => p.emails),
      (e) => e,
    ),
    phones,
    people: [...people.values()],
    linkedin: uniq(
      pages.flatMap((p) => p.linkedin),
      (l) => l.url.toLowerCase(),
    ),
    links: uniq(
      pages.flatMap((p) => p.links),
      (l) => l,
    ),
  };
}
