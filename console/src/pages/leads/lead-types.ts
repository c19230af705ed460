import type { components } from '@/api/client';

/** The resource types of the list operation (the contract's enum), each a table of its own. */
export type LeadType = components['schemas']['ListedResource']['resource_type'];
export type Lead = components['schemas']['ListedResource'];

export const LEAD_TYPES = [
  'businesses',
  'domains',
  'contacts',
  'emails',
  'phones',
  'company_registry',
  'linkedin_profiles',
] as const satisfies readonly LeadType[];

export const isLeadType = (t: string): t is LeadType => (LEAD_TYPES as readonly string[]).includes(t);

/** What each type is called (its table's label) and which of its fields the table shows after its name. */
export const TYPE_INFO: Record<LeadType, { label: string; one: string; name: string[]; columns: [string, string][] }> =
  {
    businesses: {
      label: 'Businesses',
      one: 'business',
      name: ['name'],
      columns: [
        ['category', 'Category'],
        ['address', 'Address'],
        ['phone', 'Phone'],
        ['rating', 'Rating'],
      ],
    },
    domains: {
      label: 'Domains',
      one: 'domain',
      name: ['domain', 'website'],
      columns: [
        ['title', 'Title'],
        ['website', 'Website'],
      ],
    },
    contacts: {
      label: 'Contacts',
      one: 'contact',
      name: ['name', 'email'],
      columns: [
        ['title', 'Title'],
        ['email', 'E-mail'],
        ['company', 'Company'],
      ],
    },
    emails: { label: 'E-mails', one: 'e-mail', name: ['address'], columns: [['domain', 'Domain']] },
    phones: { label: 'Phones', one: 'phone', name: ['number', 'normalized'], columns: [['normalized', 'Normalized']] },
    company_registry: {
      label: 'Registry entries',
      one: 'registry entry',
      name: ['name', 'registration_number'],
      columns: [
        ['registration_number', 'Registration number'],
        ['country_code', 'Country'],
      ],
    },
    linkedin_profiles: {
      label: 'LinkedIn profiles',
      one: 'LinkedIn profile',
      name: ['name', 'url'],
      columns: [
        ['headline', 'Headline'],
        ['company', 'Company'],
      ],
    },
  };

/** The interface's own flags; every other flag is one of the tenant's tags. */
export const STATUS_FLAGS = ['new', 'qualified', 'rejected'] as const;

/** A value of a lead's data as text for a cell. */
export function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(text).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** What a lead is called: the first of its type's naming fields it has, else its id. */
export function leadName(lead: Pick<Lead, 'resource_type' | 'resource_id' | 'data'>): string {
  for (const field of TYPE_INFO[lead.resource_type].name) {
    const value = text(lead.data[field]);
    if (value) return value;
  }
  return lead.resource_id;
}

/** The flag filter as terms (`qualified`, `!rejected`), and back. */
export const flagTerms = (flags: string | undefined) => (flags ? flags.split(',').filter(Boolean) : []);
export const joinFlags = (terms: string[]) => (terms.length ? [...new Set(terms)].join(',') : undefined);

/** Whether a lead passes a flag filter (after its flags changed: whether it stays in the view). */
export function matchesFlags(flags: string[], filter: string[]): boolean {
  return filter.every((t) => (t.startsWith('!') ? !flags.includes(t.slice(1)) : flags.includes(t)));
}

/** The media ids of a lead's photos (`idap://media/<id>` refs in its data). */
export function mediaIds(data: Record<string, unknown>): string[] {
  const photos = Array.isArray(data.photos) ? data.photos : [];
  return photos.flatMap((p) => {
    const m = typeof p === 'string' ? /^idap:\/\/media\/([0-9a-f-]{36})$/.exec(p) : null;
    return m ? [m[1]] : [];
  });
}
