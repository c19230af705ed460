import { decodeHTML } from 'entities';
import { Parser } from 'htmlparser2';
import { normalizePhone } from '../idap/resources/resource-writes';
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

/** What one pass of the HTML parser collects from a page. */
interface Parsed {
  /** The text a reader sees: script and style content left out, tags as spaces, white space collapsed. */
  text: string;
  title: string | null;
  description: string | null;
  /** Every href attribute's value, decoded. */
  hrefs: string[];
  /** The content of every `<script type="application/ld+json">`, in order. */
  jsonLd: string[];
  /** Microdata items of type schema.org/Person: their name and jobTitle props' text, and the links inside. */
  microdataPeople: { name: string; jobTitle: string; hrefs: string[] }[];
}

const PERSON_TYPE = /^https?:\/\/schema\.org\/Person$/i;

/**
 * One pass of htmlparser2 over the page: its tokenizer is a state machine that reads each character once, so
 * a hostile page (an opening whose end never comes, runs of `<`) costs linear time, and it decodes every named
 * and numeric character reference (the `entities` package) in text and attribute values.
 */
function parse(html: string): Parsed {
  const parsed: Parsed = { text: '', title: null, description: null, hrefs: [], jsonLd: [], microdataPeople: [] };
  const text: string[] = [];
  /** Per open element: the microdata Person it opens, and the prop of that Person whose text it holds. */
  type Person = Parsed['microdataPeople'][number];
  type Open = { name: string; person?: Person; prop?: { of: Person; name: 'name' | 'jobTitle' } };
  const open: Open[] = [];
  let raw: 'script' | 'style' | null = null;
  let jsonLd: string[] | null = null;
  let title: string[] | null = null;
  const person = () => {
    for (let i = open.length - 1; i >= 0; i--) if (open[i].person) return open[i].person;
    return undefined;
  };
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        text.push(' ');
        const element: Open = { name };
        if (name === 'script' || name === 'style') {
          raw = name;
          if (name === 'script' && /application\/ld\+json/i.test(attributes.type ?? '')) jsonLd = [];
        }
        if (name === 'title' && parsed.title === null && title === null) title = [];
        if (name === 'meta' && parsed.description === null && attributes.name?.toLowerCase() === 'description') {
          parsed.description = attributes.content ?? null;
        }
        if (attributes.href !== undefined) {
          parsed.hrefs.push(attributes.href);
          person()?.hrefs.push(attributes.href);
        }
        const prop = attributes.itemprop;
        const of = person();
        // The first name and jobTitle of a Person count (as a reader of the page would take them).
        if ((prop === 'name' || prop === 'jobTitle') && of && !of[prop]) element.prop = { of, name: prop };
        if (attributes.itemtype !== undefined && PERSON_TYPE.test(attributes.itemtype.trim())) {
          element.person = { name: '', jobTitle: '', hrefs: [] };
          parsed.microdataPeople.push(element.person);
        }
        open.push(element);
      },
      ontext(data) {
        if (jsonLd) jsonLd.push(data);
        if (raw) return;
        text.push(data);
        if (title) title.push(data);
        for (let i = open.length - 1; i >= 0; i--) {
          const { prop } = open[i];
          if (prop) {
            prop.of[prop.name] += data;
            break;
          }
        }
      },
      onclosetag(name) {
        text.push(' ');
        if (name === raw) {
          if (jsonLd) parsed.jsonLd.push(jsonLd.join(''));
          raw = null;
          jsonLd = null;
        }
        if (name === 'title' && title) {
          parsed.title = title.join('');
          title = null;
        }
        // The innermost open element of that name closes (htmlparser2 closes what it implies itself).
        for (let i = open.length - 1; i >= 0; i--) {
          if (open[i].name === name) {
            open.length = i;
            break;
          }
        }
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  parsed.text = collapse(text.join(''));
  return parsed;
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

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

/** A JSON-LD object of a page: whatever the page wrote, each member read as `unknown` and checked where read. */
type LdObject = Record<string, unknown>;

function jsonLdObjects(blocks: string[]): LdObject[] {
  const out: LdObject[] = [];
  for (const block of blocks) {
    try {
      const walk = (v: unknown) => {
        if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object') {
          out.push(v as LdObject);
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

const isType = (o: LdObject, t: string) => {
  const type = o['@type'];
  return type === t || (Array.isArray(type) && type.includes(t));
};
const str = (v: unknown) => (typeof v === 'string' && v.trim() ? collapse(v) : null);
/** A JSON-LD string: a page may write character references in it (JSON does not decode them). */
const ldStr = (v: unknown) => str(typeof v === 'string' ? decodeHTML(v) : v);
const firstLinkedin = (v: unknown) => {
  for (const s of ([] as unknown[]).concat(v ?? [])) {
    const m = typeof s === 'string' ? new RegExp(LINKEDIN.source, 'i').exec(s) : null;
    if (m) return linkedinUrl(m[1], m[2]);
  }
  return null;
};

function people(microdata: Parsed['microdataPeople'], ld: LdObject[]): Extracted['people'] {
  const found = ld
    .filter((o) => isType(o, 'Person') && ldStr(o.name))
    .map((o) => ({
      name: ldStr(o.name)!,
      title: ldStr(o.jobTitle),
      email:
        ldStr(o.email)
          ?.replace(/^mailto:/i, '')
          .toLowerCase() ?? null,
      linkedin: firstLinkedin(o.sameAs),
    }));
  const names = new Set(found.map((p) => p.name));
  // Microdata fallback: itemscope elements of type Person.
  for (const person of microdata) {
    const name = str(person.name);
    if (!name || names.has(name)) continue;
    names.add(name);
    const mail = person.hrefs.find((h) => /^mailto:/i.test(h));
    found.push({
      name,
      title: str(person.jobTitle),
      email: mail ? mail.slice(7).split('?')[0].toLowerCase() : null,
      linkedin: firstLinkedin(person.hrefs),
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
  const { text, title, description, hrefs, jsonLd, microdataPeople } = parse(html);
  const ld = jsonLdObjects(jsonLd);
  const emails = [
    ...hrefs.filter((h) => /^mailto:/i.test(h)).map((h) => h.slice(7).split('?')[0]),
    ...emailsIn(text),
    ...ld.map((o) => ldStr(o.email)?.replace(/^mailto:/i, '')).filter((e): e is string => Boolean(e)),
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
    title: str(title),
    description: str(description) ?? ldStr(org?.description),
    legalName: ldStr(org?.legalName) ?? LEGAL_FORM.exec(text)?.[1]?.trim() ?? ldStr(org?.name),
    emails,
    phones,
    linkedin,
    links,
    people: people(microdataPeople, ld),
    registrationNumber: ldStr(org?.taxID) ?? ldStr(org?.leiCode) ?? registryNumberIn(text),
  };
}

/** Several pages of one site as one finding, de-duplicated (phones by their normalised number, read in `country`). */
export function mergeExtracted(pages: Extracted[], country?: string | null): Extracted {
  const uniq = <T>(items: T[], key: (t: T) => string) => [...new Map(items.map((i) => [key(i), i] as const)).values()];
  const phones = uniq(
    pages
      .flatMap((p) => p.phones)
      .map((p) => p.trim())
      .filter((p) => normalizePhone(p, country)),
    (p) => normalizePhone(p, country)!,
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
