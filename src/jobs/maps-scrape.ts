import { setTimeout as sleep } from 'node:timers/promises';
import type { JobLocation } from '../locations/dataset';
import { ProviderError } from '../providers/errors';
import type { MapsPlace, MapsProvider } from '../providers/maps';
import { JobItemModel, jobItemId, jobItemsOf, type MapsJobParams } from './job.model';
import type { JobStore } from './job-store';
import { insertReportingDuplicates } from '../lib/bulk-writes';
import {
  domainOf,
  idapRef,
  normalizePhone,
  resourceId,
  resourceWrite,
  writeResources,
  type ResourceType,
} from '../idap/resources/resource-writes';

export type { MapsJobParams };

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
  /**
   * Write the resources of places the job had already found too. Needed on a retry (an earlier
   * attempt may have stored the result items and died before the resources); on a first attempt a
   * known place was stored completely by an earlier location, so it is skipped.
   */
  rewriteKnown?: boolean;
  /** Stores businesses' photos as media (docs/decisions.md §6); answers each business's idap://media refs. */
  storePhotos?: (clientId: string, urlsByPlace: string[][]) => Promise<string[][]>;
  /** Told the resources each location stored, once stored (the activity feeds them to the search index). */
  stored?: (refs: { type: ResourceType; id: string }[]) => void;
}

/** A classic text search stops after a few pages; we never ask for more than this many per location. */
const MAX_PAGES = 10;
/** Results of one location get seq numbers index * SEQ_STRIDE + position, so "order found" is stable. */
const SEQ_STRIDE = 10_000;

const category = (types: string[]) =>
  types[0] ? types[0].replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase()) : null;

export function searchText(query: string, loc: JobLocation): string {
  const where = loc.region_name && loc.region_name !== loc.name ? `${loc.name}, ${loc.region_name}` : loc.name;
  return `${query} in ${where}`;
}

/** Every place of one location's search, page by page, de-duplicated by place id. */
async function searchLocation(
  deps: ScrapeDeps,
  p: MapsJobParams,
  loc: JobLocation,
  enough: number,
): Promise<MapsPlace[]> {
  const byId = new Map<string, MapsPlace>();
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES && byId.size < enough; page++) {
    const req = {
      query: searchText(p.query, loc),
      location: { lat: loc.lat, lng: loc.lng },
      radiusM: loc.radius_m,
      language: p.language ?? undefined,
      region: p.country_code,
      pageToken,
    };
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

function businessWrites(input: ScrapeLocationInput, place: MapsPlace, photos: string[]) {
  const { client_id: clientId, job_id: jobId, params, location } = input;
  const businessId = resourceId(clientId, 'businesses', place.placeId);
  const businessRef = idapRef('businesses', businessId);
  const domain = domainOf(place.website);
  const phone = place.phone ? normalizePhone(place.phone, params.country_code) : null;
  const domainWrite = domain
    ? resourceWrite(clientId, 'domains', domain, { domain, website: place.website }, { jobId, related: [businessRef] })
    : null;
  const phoneWrite = phone
    ? resourceWrite(
        clientId,
        'phones',
        phone,
        { number: place.phone, normalized: phone },
        { jobId, related: [businessRef] },
      )
    : null;
  const view = {
    idap_ref: businessRef,
    name: place.name,
    category: category(place.types),
    address: place.address,
    country_code: params.country_code,
    region_code: location.region_code,
    lat: place.location?.lat ?? null,
    lng: place.location?.lng ?? null,
    phone: place.phone,
    website: place.website,
    rating: place.rating,
    reviews_count: place.reviewsCount,
    photos,
  };
  const { idap_ref: _ref, ...data } = view;
  const business = resourceWrite(
    clientId,
    'businesses',
    place.placeId,
    {
      ...data,
      place_id: place.placeId,
      types: place.types,
      domain,
      location_name: location.name,
      photo_urls: place.photoUrls,
    },
    { jobId, related: [domainWrite?.ref, phoneWrite?.ref].filter((r): r is string => Boolean(r)) },
  );
  return { view, resources: [business, ...(domainWrite ? [domainWrite] : []), ...(phoneWrite ? [phoneWrite] : [])] };
}

export const resultsCount = (clientId: string, jobId: string) =>
  JobItemModel.countDocuments(jobItemsOf(clientId, jobId, 'result'));

/**
 * The places of one location to write, in the order found: up to `wanted` places new to the job (a place whose
 * result item exists was stored by an earlier location, or by an earlier attempt of this one), and the known
 * places met before the last of them when `rewriteKnown`. A job whose count is 0 has no result item to look for:
 * the count is exact (the workflow's for a first attempt, counted from the store for a retry).
 */
async function placesToWrite(
  input: ScrapeLocationInput & { count: number },
  places: MapsPlace[],
  wanted: number,
  rewriteKnown: boolean,
) {
  if (wanted <= 0 || !places.length) return [];
  const ids = places.map((p) => jobItemId(input.job_id, 'result', p.placeId));
  const filter = { _id: { $in: ids }, client_id: input.client_id };
  const known = new Set(
    input.count === 0 ? [] : (await JobItemModel.find(filter, { _id: 1 }).lean<{ _id: string }[]>()).map((d) => d._id),
  );
  const chosen: { place: MapsPlace; at: number }[] = [];
  let fresh = 0;
  for (let at = 0; at < places.length && fresh < wanted; at++) {
    const isKnown = known.has(ids[at]);
    if (!isKnown) fresh += 1;
    if (!isKnown || rewriteKnown) chosen.push({ place: places[at], at });
  }
  return chosen;
}

/**
 * Searches one location and stores what is new for the job, up to max_results: the places' photos first, then, in
 * one step under the job's lock and only while it is processing, the job's result items (their ids are
 * deterministic, so inserting tells which places are new to the job and the count stays exact), the businesses with
 * their domains and phones as IDAP resources, and the job's progress. A location that finishes as its job is
 * cancelled is either written and counted before the cancel, or not written. Safe to run again after a crash at
 * any point: a place whose item exists is written again, never twice. `count` is the job's result count before this
 * location; the new count is answered.
 */
export async function scrapeLocation(
  deps: ScrapeDeps,
  input: ScrapeLocationInput & { count: number },
): Promise<{ results_count: number; found: number }> {
  const { client_id: clientId, job_id: jobId, params, location, index, total } = input;
  const cap = params.max_results ?? Infinity;
  const places = input.count < cap ? await searchLocation(deps, params, location, cap - input.count + 200) : [];
  const chosen = await placesToWrite(input, places, cap - input.count, Boolean(deps.rewriteKnown));
  // Photos are fetched and stored before the job's lock is taken: a cancel never waits on a provider's downloads.
  // A photo stored for a place the step then does not write is kept, as the media of a place that was found.
  const photos = deps.storePhotos
    ? await deps.storePhotos(
        clientId,
        chosen.map((c) => c.place.photoUrls),
      )
    : chosen.map(() => []);
  let count = input.count;
  let resources: ReturnType<typeof businessWrites>['resources'] = [];
  const recorded = await deps.store.recordWhileActive(jobId, clientId, ['processing'], async () => {
    const now = new Date();
    const writes = chosen.map((c, j) => businessWrites(input, c.place, photos[j]));
    const duplicates = new Set(
      await insertReportingDuplicates(
        JobItemModel,
        chosen.map(({ place, at }, j) => ({
          _id: jobItemId(jobId, 'result', place.placeId),
          client_id: clientId,
          job_id: jobId,
          kind: 'result',
          seq: index * SEQ_STRIDE + at,
          found: true,
          data: writes[j].view,
          created_at: now,
          updated_at: now,
        })),
      ),
    );
    count = input.count + chosen.length - duplicates.size;
    resources = writes.filter((_, j) => deps.rewriteKnown || !duplicates.has(j)).flatMap((w) => w.resources);
    if (resources.length) await writeResources(resources);
    return {
      max: { 'progress.done': index + 1, 'progress.total': total, results_count: count },
      message: `Searched ${location.name} (${index + 1} of ${total}): ${count} businesses so far`,
    };
  });
  if (recorded) deps.stored?.(resources.map(({ type, id }) => ({ type, id })));
  return { results_count: recorded ? count : input.count, found: places.length };
}
