import { withoutMagic } from './faults';
import { Seed, titleCase } from './seed';
import { trimEndWhere } from '../lib/trim';

export interface SitePerson {
  name: string;
  title: string;
  email: string;
  linkedin: string;
}

/** The truth behind one sandbox company website; tests compare what research extracted with it. */
export interface Site {
  domain: string;
  name: string;
  legalName: string;
  registrationNumber: string;
  emails: string[];
  phones: string[];
  people: SitePerson[];
  linkedinCompany: string;
}

const FIRST = [
  'Anna',
  'Ben',
  'Chloe',
  'David',
  'Eva',
  'Finn',
  'Grace',
  'Hugo',
  'Iris',
  'Jonas',
  'Lena',
  'Marco',
  'Nora',
  'Omar',
  'Sofia',
];
const LAST = [
  'Jansen',
  'Smith',
  'Müller',
  'Rossi',
  'Dubois',
  'Novak',
  'Berg',
  'Costa',
  'Visser',
  'Klein',
  'Larsen',
  'Moreau',
];
const TITLES = [
  'Chief Executive Officer',
  'Head of Sales',
  'Operations Manager',
  'Marketing Director',
  'Founder',
  'Chief Technology Officer',
];

const ascii = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[^\x20-\x7e]/g, '')
    .toLowerCase();

export function siteFor(domainInput: string): Site {
  const domain = domainInput.toLowerCase().replace(/^www\./, '');
  const label = withoutMagic(domain.split('.')[0])
    .replace(/-[0-9a-f]{4}$/, '')
    .replace(/^-|-$/g, '');
  const name = titleCase(label.replace(/-/g, ' ')) || 'Company';
  const s = new Seed('site', domain);
  const people = Array.from({ length: s.int(2, 4) }, (_, i) => {
    const first = FIRST[(s.int(0, 99) + i * 7) % FIRST.length];
    const last = s.pick(LAST);
    const handle = `${ascii(first)}-${ascii(last)}-${s.hex(2)}${i}`;
    return {
      name: `${first} ${last}`,
      title: TITLES[(s.int(0, 99) + i) % TITLES.length],
      email: `${ascii(first)}.${ascii(last)}@${domain}`,
      linkedin: `https://www.linkedin.com/in/${handle}`,
    };
  });
  const phone = () => `+31 ${s.int(10, 99)} ${s.int(100, 999)} ${s.int(1000, 9999)}`;
  return {
    domain,
    name,
    legalName: `${name} B.V.`,
    registrationNumber: String(s.int(1000, 9999)) + String(s.int(1000, 9999)),
    emails: [`info@${domain}`, `sales@${domain}`],
    phones: [phone(), phone()],
    people,
    linkedinCompany: `https://www.linkedin.com/company/${label || 'company'}`,
  };
}

const page = (title: string, body: string, jsonLd?: unknown) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
${jsonLd ? `<script type="application/ld+json">${JSON.stringify(jsonLd)}</script>` : ''}
</head><body>
<nav><a href="/">Home</a> <a href="/team">Our team</a> <a href="/contact">Contact</a></nav>
${body}
</body></html>`;

/** A page of the company website, or null when the site has no such page (or no site at all). */
export function renderPage(domain: string, path: string): string | null {
  if (/nosite/i.test(domain)) return null;
  const site = siteFor(domain);
  const registration = `Registration number: ${site.registrationNumber} (Chamber of Commerce)`;
  const footer = `<footer><p>&copy; ${site.legalName}. ${registration}.</p>
<p><a href="${site.linkedinCompany}">Follow us on LinkedIn</a></p></footer>`;
  const mailto = (email: string) => `<a href="mailto:${email}">${email}</a>`;
  const tel = (phone: string) => `<a href="tel:${phone.replace(/ /g, '')}">${phone}</a>`;
  switch (trimEndWhere(path, (c) => c === '/') || '/') {
    case '/':
      return page(
        `${site.name} — Welcome`,
        `<h1>${site.name}</h1>
<p>We are ${site.name}, serving customers since ${2000 + (site.registrationNumber.charCodeAt(0) % 20)}.</p>
<p>Write to ${mailto(site.emails[0])} or call ${tel(site.phones[0])}.</p>
${footer}`,
      );
    case '/team':
      return page(
        `${site.name} — Team`,
        `<h1>Our team</h1>
${site.people
  .map(
    (p) => `<div itemscope itemtype="https://schema.org/Person"><h3 itemprop="name">${p.name}</h3>
<p itemprop="jobTitle">${p.title}</p>${mailto(p.email)} <a href="${p.linkedin}">LinkedIn</a></div>`,
  )
  .join('\n')}
${footer}`,
        {
          '@context': 'https://schema.org',
          '@type': 'Organization',
          name: site.legalName,
          url: `https://${site.domain}/`,
          sameAs: [site.linkedinCompany],
          employee: site.people.map((p) => ({
            '@type': 'Person',
            name: p.name,
            jobTitle: p.title,
            email: p.email,
            sameAs: [p.linkedin],
          })),
        },
      );
    case '/contact':
      return page(
        `${site.name} — Contact`,
        `<h1>Contact</h1>
<p>Sales: ${mailto(site.emails[1])}, phone ${site.phones[1]}.</p>
<p>Office: ${tel(site.phones[0])}</p>
${footer}`,
      );
    default:
      return null;
  }
}
