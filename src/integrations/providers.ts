import type { JsonAnswer } from '../lib/contract-types';
import { AppError, type FieldError } from '../lib/errors';

export const PROVIDER_NAMES = ['maps', 'parcel-tracking', 'messaging'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
export type RelayMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface CredentialField {
  name: string;
  label: string;
  type: 'string' | 'secret' | 'url' | 'number' | 'boolean';
  required: boolean;
  description: string | null;
}

/** A relay path the provider allows: its shape (shown to users) and the exact pattern it must match. */
export interface RelayRoute {
  path: string;
  pattern: RegExp;
  methods: RelayMethod[];
}

export interface ProviderTemplate {
  provider_name: ProviderName;
  display_name: string;
  description: string;
  fields: CredentialField[];
  supports_test: boolean;
  supports_billing_sync: boolean;
  supports_spend_tracking: boolean;
  /** The documented list price of one relayed call: what spend is counted in until a billing sync reconciles it. */
  price_per_call: number;
  currency: string;
  routes: RelayRoute[];
}

const SEGMENT = '[A-Za-z0-9_-]{1,100}';
const exact = (path: string, methods: RelayMethod[]): RelayRoute => ({
  path,
  methods,
  pattern: new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
});
const withId = (path: string, methods: RelayMethod[]): RelayRoute => ({
  path,
  methods,
  pattern: new RegExp(
    `^${path
      .split('{id}')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join(SEGMENT)}$`,
  ),
});

/**
 * The providers a brand can store a key for. Relay paths are matched whole against these patterns
 * (segments of letters, digits, `_` and `-` only), so `..`, encoded slashes, absolute URLs and other
 * hosts can never match.
 */
export const PROVIDERS: Record<ProviderName, ProviderTemplate> = {
  maps: {
    provider_name: 'maps',
    display_name: 'Maps platform',
    description: 'Places search, geocoding and place details. The key is sent as the `key` query parameter.',
    fields: [
      {
        name: 'api_key',
        label: 'API key',
        type: 'secret',
        required: true,
        description: 'Server key for the relays; it never leaves the service.',
      },
      {
        name: 'browser_key',
        label: 'Browser key',
        type: 'string',
        required: false,
        description:
          "A separate key for the signup page's map, restricted at the maps platform to the signup page's origin " +
          '(HTTP referrer) and to the Maps JavaScript API. It is the only maps key ever sent to a browser; ' +
          'without it the signup page works without the map.',
      },
    ],
    supports_test: true,
    supports_billing_sync: false,
    supports_spend_tracking: true,
    price_per_call: 0.005,
    currency: 'USD',
    routes: [
      'geocode/json',
      'place/textsearch/json',
      'place/details/json',
      'place/nearbysearch/json',
      'place/autocomplete/json',
      'place/findplacefromtext/json',
      'timezone/json',
      'directions/json',
      'distancematrix/json',
    ].map((p) => exact(p, ['GET'])), // the maps platform's web services are GETs
  },
  'parcel-tracking': {
    provider_name: 'parcel-tracking',
    display_name: 'Parcel tracking',
    description: 'Shipment tracking across couriers. The key is sent in the `tracking-api-key` header.',
    fields: [{ name: 'api_key', label: 'API key', type: 'secret', required: true, description: null }],
    supports_test: true,
    supports_billing_sync: false,
    supports_spend_tracking: true,
    price_per_call: 0.01,
    currency: 'USD',
    routes: [
      exact('/trackings', ['GET', 'POST']),
      withId('/trackings/{id}', ['GET', 'PUT', 'DELETE']),
      exact('/couriers', ['GET']),
      exact('/couriers/detect', ['POST']),
    ],
  },
  messaging: {
    provider_name: 'messaging',
    display_name: 'Messaging',
    description:
      'SMS through the messaging provider. Paths are relative to the account; the account id is filled in and the ' +
      'account id and auth token are sent as HTTP basic authentication.',
    fields: [
      { name: 'account_sid', label: 'Account id', type: 'string', required: true, description: 'Starts with AC.' },
      { name: 'auth_token', label: 'Auth token', type: 'secret', required: true, description: null },
      {
        name: 'from_number',
        label: 'Default sender',
        type: 'string',
        required: false,
        description: 'E.164 number or sender id.',
      },
    ],
    supports_test: true,
    supports_billing_sync: true,
    supports_spend_tracking: true,
    price_per_call: 0.0079,
    currency: 'USD',
    routes: [exact('/Messages.json', ['GET', 'POST']), withId('/Messages/{id}.json', ['GET', 'DELETE'])],
  },
};

export function templateOf(name: string): ProviderTemplate | null {
  return (PROVIDER_NAMES as readonly string[]).includes(name) ? PROVIDERS[name as ProviderName] : null;
}

/** A template as the API shows it. */
type ProviderTemplateView = JsonAnswer<'listProviderTemplates', 200>['providers'][number];

export function templateView(t: ProviderTemplate): ProviderTemplateView {
  return {
    provider_name: t.provider_name,
    display_name: t.display_name,
    description: t.description,
    fields: t.fields,
    supports_test: t.supports_test,
    supports_billing_sync: t.supports_billing_sync,
    supports_spend_tracking: t.supports_spend_tracking,
    price_per_call: t.price_per_call,
    currency: t.currency,
    relay_paths: t.routes.map((r) => ({ path: r.path, methods: r.methods })),
  };
}

export type Credentials = Record<string, string | number | boolean>;

const MAX_TEXT = 1000;

/**
 * Credentials checked against the template: every required field, nothing unknown, each of its type (422 naming
 * the field).
 */
export function validateCredentials(t: ProviderTemplate, given: Record<string, unknown>): Credentials {
  const errors: FieldError[] = [];
  const err = (name: string, message: string) =>
    errors.push({ location: 'body', field: `credentials.${name}`, message });
  for (const name of Object.keys(given))
    if (!t.fields.some((f) => f.name === name)) err(name, `is not a ${t.provider_name} credential field`);
  const out: Credentials = {};
  for (const f of t.fields) {
    const v = given[f.name];
    if (v === undefined || v === null || v === '') {
      if (f.required) err(f.name, 'is required');
      continue;
    }
    if (
      f.type === 'number'
        ? typeof v !== 'number'
        : f.type === 'boolean'
          ? typeof v !== 'boolean'
          : typeof v !== 'string'
    ) {
      err(f.name, `must be a ${f.type === 'secret' || f.type === 'url' ? 'string' : f.type}`);
    } else if (typeof v === 'string' && (v.length > MAX_TEXT || [...v].some((c) => c.charCodeAt(0) < 0x20))) {
      err(f.name, `must be at most ${MAX_TEXT} printable characters`);
    } else if (f.type === 'url' && !/^https?:\/\/\S+$/.test(v as string)) {
      err(f.name, 'must be an http(s) URL');
    } else out[f.name] = v as string | number | boolean;
  }
  if (errors.length)
    throw AppError.invalid(`Invalid credentials: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, errors);
  return out;
}

/** A credential preview: all but the last 4 characters masked, and nothing of a short value. */
export function maskCredentials(c: Credentials): Record<string, string> {
  return Object.fromEntries(
    Object.entries(c).map(([k, v]) => {
      const s = String(v);
      return [k, '••••••••••••' + (s.length >= 12 ? s.slice(-4) : '')];
    }),
  );
}
