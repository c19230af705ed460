import { normalizePhone } from '../jobs/resource-writes';

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

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©' };
const decode = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) =>
    e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : ENTITIES[e.toLowerCase()] ?? m);
const textOf = (html: string) =>
  decode(html.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const PHONE = /\+\d{1,3}[\s.-]?(?:\(\d{1,4}\)[\s.-]?)?\d{1,4}(?:[\s.-]?\d{2,4}){1,4}/g;
const LINKEDIN = /https?:\/\/(?:[a-z]{2,3}\.)?linkedin\.com\/(in|company)\/([A-Za-z0-9_%-]+)/gi;
const REGISTRY =
  /(?:registration\s+(?:no\.?|number)|company\s+(?:no\.?|number|registration)|chamber\s+of\s+commerce(?:\s+(?:no\.?|number))?|kvk(?:-nummer|\s+no\.?|\s+number)?|crn|handelsregister|hrb|siren|registry\s+(?:no\.?|number))\s*[:#]?\s*([A-Z]{0,3}[ -]?\d[\d .-]{3,16}\d)/i;
const LEGAL_FORM = /©\s*(?:\d{4}\s+)?([A-Z][^©<>|]{1,80}?\s(?:B\.V\.|N\.V\.|GmbH|Ltd\.?|LLC|Inc\.?|S\.A\.|SAS|AG|AB|BV|NV))/;
const FOLLOW = /(team|about|contact|people|leadership|management|impressum|imprint|over-ons|kontakt)/i;

const linkedinUrl = (kind: string, handle: string) => `https://www.linkedin.com/${kind.toLowerCase()}/${handle}`;
const plausibleEmail = (e: string) => !/\.(png|jpe?g|gif|svg|webp)$/i.test(e) && !/^(example|test)@/i.test(e);

function jsonLdObjects(html: string): any[] {
  const out: any[] = [];
  for (const m of html.matchAll(/<script[^>]+application\/ld\+json[^>]*>([\s\S]*?)<\/script>/gi)) {
    try {
      const walk = (v: any) => {
        if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object') {
          out.push(v);
          for (const child of Object.values(v)) if (child && typeof child === 'object') walk(child);
        }
      };
      walk(JSON.parse(m[1]));
    } catch {
      /* a broken JSON-LD block is ignored */
    }
  }
  return out;
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
  const found = ld.filter((o) => isType(o, 'Person') && str(o.name)).map((o) => ({
    name: str(o.name)!, title: str(o.jobTitle), email: str(o.email)?.replace(/^mailto:/i, '').toLowerCase() ?? null, linkedin: firstLinkedin(o.sameAs),
  }));
  // Microdata fallback: itemscope blocks of type Person.
  for (const block of html.split(/itemtype="https?:\/\/schema\.org\/Person"/i).slice(1)) {
    const chunk = block.split(/itemscope/i)[0];
    const name = str(textOf(/itemprop="name"[^>]*>([\s\S]*?)</i.exec(chunk)?.[1] ?? ''));
    if (!name || found.some((p) => p.name === name)) continue;
    const mail = /mailto:([^"'?]+)/i.exec(chunk)?.[1];
    found.push({ name, title: str(textOf(/itemprop="jobTitle"[^>]*>([\s\S]*?)</i.exec(chunk)?.[1] ?? '')), email: mail?.toLowerCase() ?? null, linkedin: firstLinkedin([chunk]) });
  }
  return found;
}

export function extractPage(html: string, pageUrl: string): Extracted {
  const text = textOf(html);
  const ld = jsonLdObjects(html);
  const hrefs = [...html.matchAll(/href\s*=\s*["']([^"']+)["']/gi)].map((m) => decode(m[1]));
  const emails = [
    ...hrefs.filter((h) => /^mailto:/i.test(h)).map((h) => h.slice(7).split('?')[0]),
    ...(text.match(EMAIL) ?? []),
    ...ld.map((o) => str(o.email)?.replace(/^mailto:/i, '')).filter((e): e is string => Boolean(e)),
  ].map((e) => e.toLowerCase()).filter(plausibleEmail);
  const phones = [...hrefs.filter((h) => /^tel:/i.test(h)).map((h) => decodeURIComponent(h.slice(4))), ...(text.match(PHONE) ?? [])];
  const linkedin = [...html.matchAll(LINKEDIN)].map((m) => ({ url: linkedinUrl(m[1], m[2]), kind: (m[1].toLowerCase() === 'in' ? 'person' : 'company') as 'person' | 'company' }));
  const org = ld.find((o) => isType(o, 'Organization') || isType(o, 'LocalBusiness') || isType(o, 'Corporation'));
  const base = new URL(pageUrl);
  const links = hrefs.flatMap((h) => {
    try {
      const u = new URL(h, base);
      return u.hostname === base.hostname && /^https?:$/.test(u.protocol) && FOLLOW.test(u.pathname) ? [`${u.origin}${u.pathname}`] : [];
    } catch {
      return [];
    }
  });
  return {
    title: str(textOf(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? '')),
    description: str(/<meta[^>]+name=["']description["'][^>]+content=["']([^"']*)["']/i.exec(html)?.[1]) ?? str(org?.description),
    legalName: str(org?.legalName) ?? LEGAL_FORM.exec(text)?.[1]?.trim() ?? str(org?.name),
    emails, phones, linkedin, links,
    people: people(html, ld),
    registrationNumber: str(org?.taxID) ?? str(org?.leiCode) ?? REGISTRY.exec(text)?.[1]?.replace(/[\s.-]+$/, '').trim() ?? null,
  };
}

/** Several pages of one site as one finding, de-duplicated (phones by their normalised number). */
export function mergeExtracted(pages: Extracted[]): Extracted {
  const uniq = <T>(items: T[], key: (t: T) => string) => [...new Map(items.map((i) => [key(i), i] as const)).values()];
  const phones = uniq(pages.flatMap((p) => p.phones).map((p) => p.trim()).filter((p) => normalizePhone(p)), (p) => normalizePhone(p)!);
  const people = new Map<string, Extracted['people'][number]>();
  for (const p of pages.flatMap((x) => x.people)) {
    const prev = people.get(p.name);
    people.set(p.name, { name: p.name, title: prev?.title ?? p.title, email: prev?.email ?? p.email, linkedin: prev?.linkedin ?? p.linkedin });
  }
  const firstOf = <K extends keyof Extracted>(k: K) => pages.map((p) => p[k]).find((v) => v) ?? null;
  return {
    title: firstOf('title') as string | null,
    description: firstOf('description') as string | null,
    legalName: firstOf('legalName') as string | null,
    registrationNumber: firstOf('registrationNumber') as string | null,
    emails: uniq(pages.flatMap((p) => p.emails), (e) => e),
    phones,
    people: [...people.values()],
    linkedin: uniq(pages.flatMap((p) => p.linkedin), (l) => l.url.toLowerCase()),
    links: uniq(pages.flatMap((p) => p.links), (l) => l),
  };
}
