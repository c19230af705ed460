import type { JobLocation } from '../locations/dataset';
import { ProviderError } from '../providers/errors';
import type { MapsPlace, MapsProvider } from '../providers/maps';
import { idapRef, resourceId } from '../idap/resource.model';
import { JobItemModel, jobItemId } from './job.model';
import type { JobStore } from './job-store';
import { domainOf, normalizePhone, upsertResource, writeResources } from './resource-writes';

export interface MapsJobParams {
  query: string;
  country_code: string;
  region_codes?: string[];
  max_locations?: number | null;
  max_results?: number | null;
  language?: string | null;
}

export interface ScrapeLocationInput {
  job_id: string;
  client_id: string;
  params: MapsJobParams;
  location: JobLocation;
  index: number;
  total: number;
}

export interface ScrapeDeps {
  maps: MapsProvider;
  store: JobStore;
  signal?: AbortSignal;
  heartbeat?: (details?: unknown) => void;
}

/** A classic text search stops after a few pages; we never ask for more than this many per location. */
const MAX_PAGES = 10;
/** Results of one location get seq numbers index * SEQ_STRIDE + position, so "order found" is stable. */
const SEQ_STRIDE = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const category = (types: string[]) => (types[0] ? types[0].replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase()) : null);

export function searchText(query: string, loc: JobLocation): string {
  const where = loc.region_name && loc.region_name !== loc.name ? `${loc.name}, ${loc.region_name}` : loc.name;
  return `${query} in ${where}`;
}

/** Every place of one location's search, page by page, de-duplicated by place id. */
async function searchLocation(deps: ScrapeDeps, p: MapsJobParams, loc: JobLocation, enough: number): Promise<MapsPlace[]> {
  const byId = new Map<string, MapsPlace>();
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES && byId.size < enough; page++) {
    const req = { query: searchText(p.query, loc), location: { lat: loc.lat, lng: loc.lng }, radiusM: loc.radius_m, language: p.language ?? undefined, region: p.country_code, pageToken };
    let answer;
    for (let wait = 0; ; wait++) {
      try {
        answer = await deps.maps.textSearch(req, deps.signal);
        break;
      } catch (err) {
        // A fresh next_page_token takes a moment to become valid at the real provider.
        if (!(pageToken && err instanceof ProviderError && /INVALID_REQUEST/.test(err.message) && wait < 3)) throw err;
        await sleep(2000);
      }
    }
    for (const place of answer.places) if (!byId.has(place.placeId)) byId.set(place.placeId, place);
    deps.heartbeat?.({ location: loc.name, page, places: byId.size });
    if (!answer.nextPageToken) break;
    pageToken = answer.nextPageToken;
  }
  return [...byId.values()];
}

function businessWrites(input: ScrapeLocationInput, place: MapsPlace) {
  const { client_id: clientId, job_id: jobId, params, location } = input;
  const businessId = resourceId(clientId, 'businesses', place.placeId);
  const businessRef = idapRef('businesses', businessId);
  const domain = domainOf(place.website);
  const phone = place.phone ? normalizePhone(place.phone) : null;
  const domainWrite = domain ? upsertResource(clientId, 'domains', domain, { domain, website: place.website }, { jobId, related: [businessRef] }) : null;
  const phoneWrite = phone ? upsertResource(clientId, 'phones', phone, { number: place.phone, normalized: phone }, { jobId, related: [businessRef] }) : null;
  const view = {
    idap_ref: businessRef, name: place.name, category: category(place.types), address: place.address,
    country_code: params.country_code, region_code: location.region_code,
    lat: place.location?.lat ?? null, lng: place.location?.lng ?? null,
    phone: place.phone, website: place.website, rating: place.rating, reviews_count: place.reviewsCount,
    // Media storage (DECISIONS.md §6) is not wired in yet: photos stay empty and the URLs are kept in data.photo_urls.
    photos: [] as string[],
  };
  const { idap_ref: _ref, ...data } = view;
  const business = upsertResource(clientId, 'businesses', place.placeId, {
    ...data, place_id: place.placeId, types: place.types, domain, location_name: location.name, photo_urls: place.photoUrls,
  }, { jobId, related: [domainWrite?.ref, phoneWrite?.ref].filter((r): r is string => Boolean(r)) });
  return { view, ops: [business.op, ...(domainWrite ? [domainWrite.op] : []), ...(phoneWrite ? [phoneWrite.op] : [])] };
}

export const resultsCount = (clientId: string, jobId: string) => JobItemModel.countDocuments({ client_id: clientId, job_id: jobId, kind: 'result' });

/**
 * Searches one location and stores what is new for the job, up to max_results: businesses (with
 * their domains and phones) as IDAP resources, then the job's result items. Safe to run again after
 * a crash at any point: ids are deterministic and the count is always read back from MongoDB.
 */
export async function scrapeLocation(deps: ScrapeDeps, input: ScrapeLocationInput): Promise<{ results_count: number; found: number }> {
  const { client_id: clientId, job_id: jobId, params, location, index, total } = input;
  const cap = params.max_results ?? Infinity;
  const before = await resultsCount(clientId, jobId);
  let found = 0;
  if (before < cap) {
    const places = await searchLocation(deps, params, location, cap - before + 200);
    found = places.length;
    const itemIds = places.map((p) => jobItemId(jobId, 'result', p.placeId));
    const known = new Set((await JobItemModel.find({ client_id: clientId, job_id: jobId, _id: { $in: itemIds } }, { _id: 1 }).lean()).map((d) => d._id));
    const fresh = places.filter((p) => !known.has(jobItemId(jobId, 'result', p.placeId))).slice(0, Math.max(0, cap - before));
    const writes = fresh.map((p) => businessWrites(input, p));
    await writeResources(writes.flatMap((w) => w.ops));
    if (writes.length) {
      await JobItemModel.bulkWrite(fresh.map((p, i) => ({
        updateOne: {
          filter: { _id: jobItemId(jobId, 'result', p.placeId), client_id: clientId },
          update: { $setOnInsert: { job_id: jobId, kind: 'result', seq: index * SEQ_STRIDE + i, found: true, data: writes[i].view } },
          upsert: true,
        },
      })) as never, { ordered: false });
    }
  }
  const count = await resultsCount(clientId, jobId);
  await deps.store.update(jobId, clientId, {
    'progress.done': index + 1, 'progress.total': total, results_count: count, message: `Searched ${location.name} (${index + 1} of ${total}): ${count} businesses so far`,
  }, ['processing']);
  return { results_count: count, found };
}
