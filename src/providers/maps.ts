import { z } from 'zod';
import { ProviderError } from './errors';
import { providerGet, rejected } from './http';

/** A place as the service uses it, whatever the provider's wire format. */
export interface MapsPlace {
  placeId: string;
  name: string;
  address: string | null;
  location: { lat: number; lng: number } | null;
  types: string[];
  rating: number | null;
  reviewsCount: number | null;
  website: string | null;
  phone: string | null;
  photoUrls: string[];
}

export interface TextSearchRequest {
  query: string;
  location?: { lat: number; lng: number };
  radiusM?: number;
  language?: string;
  region?: string;
  pageToken?: string;
}

export interface MapsPhoto {
  bytes: Buffer;
  contentType: string;
}

export interface MapsProvider {
  textSearch(
    req: TextSearchRequest,
    signal?: AbortSignal,
  ): Promise<{ places: MapsPlace[]; nextPageToken: string | null }>;
  /** A place photo (a URL from photoUrls), or null when it cannot be had: photos are best effort. */
  fetchPhoto?(url: string, signal?: AbortSignal): Promise<MapsPhoto | null>;
}

const MAX_PHOTO_BYTES = 10 * 1024 * 1024;

const PROVIDER = 'maps';

// The classic Places Text Search answer; only what we use is checked, the rest passes through.
const wirePlace = z.object({
  place_id: z.string().min(1),
  name: z.string(),
  formatted_address: z.string().optional(),
  geometry: z.object({ location: z.object({ lat: z.number(), lng: z.number() }) }).optional(),
  types: z.array(z.string()).optional(),
  rating: z.number().optional(),
  user_ratings_total: z.number().int().optional(),
  website: z.string().optional(),
  international_phone_number: z.string().optional(),
  photos: z.array(z.object({ photo_reference: z.string() })).optional(),
});
const wire = z.object({
  status: z.string(),
  error_message: z.string().optional(),
  results: z.array(wirePlace).default([]),
  next_page_token: z.string().optional(),
});

const RETRYABLE_STATUS = new Set(['OVER_QUERY_LIMIT', 'UNKNOWN_ERROR']);

export function createMapsProvider(opts: { baseUrl: string; key?: string; timeoutMs?: number }): MapsProvider {
  const base = opts.baseUrl.replace(/\/$/, '');
  const timeoutMs = opts.timeoutMs ?? 15_000;
  // Photo URLs are stored without the key: whoever fetches them adds it.
  const photoUrl = (ref: string) =>
    `${base}/maps/api/place/photo?maxwidth=800&photo_reference=${encodeURIComponent(ref)}`;
  return {
    async fetchPhoto(url, signal) {
      if (!url.startsWith(`${base}/`)) return null; // only the provider's own photo URLs, with our key
      try {
        const res = await fetch(opts.key ? `${url}&key=${encodeURIComponent(opts.key)}` : url, {
          signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])]),
        });
        const contentType = res.headers.get('content-type') ?? '';
        if (!res.ok || !contentType.startsWith('image/')) return null;
        const bytes = Buffer.from(await res.arrayBuffer());
        return bytes.length && bytes.length <= MAX_PHOTO_BYTES ? { bytes, contentType } : null;
      } catch {
        return null;
      }
    },

    async textSearch(req, signal) {
      const params = new URLSearchParams();
      if (req.pageToken) params.set('pagetoken', req.pageToken);
      else {
        params.set('query', req.query);
        if (req.location) params.set('location', `${req.location.lat},${req.location.lng}`);
        if (req.radiusM) params.set('radius', String(req.radiusM));
        if (req.language) params.set('language', req.language);
        if (req.region) params.set('region', req.region.toLowerCase());
      }
      if (opts.key) params.set('key', opts.key);
      const res = await providerGet(PROVIDER, `${base}/maps/api/place/textsearch/json?${params}`, {
        timeoutMs,
        signal,
        accept: 'application/json',
      });
      if (res.status >= 400) throw rejected(PROVIDER, res);
      let body: z.infer<typeof wire>;
      try {
        body = wire.parse(JSON.parse(res.text));
      } catch {
        throw new ProviderError(
          PROVIDER,
          'malformed',
          `answer could not be interpreted (${res.text.slice(0, 60)})`,
          res.status,
        );
      }
      if (body.status !== 'OK' && body.status !== 'ZERO_RESULTS') {
        const message = `${body.status}${body.error_message ? `: ${body.error_message}` : ''}`;
        throw new ProviderError(
          PROVIDER,
          RETRYABLE_STATUS.has(body.status) ? 'rate_limited' : 'rejected',
          message,
          res.status,
        );
      }
      return {
        places: body.results.map((p) => ({
          placeId: p.place_id,
          name: p.name,
          address: p.formatted_address ?? null,
          location: p.geometry?.location ?? null,
          types: p.types ?? [],
          rating: p.rating ?? null,
          reviewsCount: p.user_ratings_total ?? null,
          website: p.website ?? null,
          phone: p.international_phone_number ?? null,
          photoUrls: (p.photos ?? []).map((ph) => photoUrl(ph.photo_reference)),
        })),
        nextPageToken: body.next_page_token ?? null,
      };
    },
  };
}
