import { PinModel } from './pin.model';
import { ReservationModel } from './reservation.model';
import { PIN_NAME, normalizePinName, pinId } from './pin-name';
import { oneOf, trimEndWhere } from '../lib/trim';

export const DEFAULT_SUGGESTION_COUNT = 5;
/** Contract caps: check-name gives up to 10 alternatives, preview-pin's `count` is at most 20. */
export const MAX_CHECK_NAME_SUGGESTIONS = 10;
export const MAX_PREVIEW_SUGGESTIONS = 20;

const NAME_MAX = 64;
const SUFFIX_WORDS = ['HQ', 'SHOP', 'STORE', 'CO', 'OFFICE', 'PLACE', 'HUB', 'CENTER'];
const PREFIX_WORDS = ['THE', 'MY', 'GET'];

export interface NameAvailability {
  is_available: boolean;
  suggestions: string[];
}

/** Trims `base` so that `base + tail` stays within the name limit (never cutting into nothing). */
function withTail(base: string, tail: string): string {
  return `${base.slice(0, Math.max(1, NAME_MAX - tail.length))}${tail}`;
}

/**
 * Candidate alternatives for a taken name, most natural first: the country, words, then numbers. Round
 * `round` (0, 1, ...) yields the next batch so that a crowded name still finds enough free ones.
 */
export function candidateNames(name: string, countryCode: string, round: number, size: number): string[] {
  const base = trimEndWhere(name, oneOf(/[-_]/)) || name;
  const out: string[] = [];
  if (round === 0) {
    out.push(withTail(base, `-${countryCode}`));
    for (const w of SUFFIX_WORDS) out.push(withTail(base, `-${w}`));
    for (const w of PREFIX_WORDS) out.push(`${w}-${base}`.slice(0, NAME_MAX));
  }
  for (let n = size * round + 1; n <= size * (round + 1); n++) out.push(withTail(base, String(n)));
  return [...new Set(out)].filter((c) => c !== name && PIN_NAME.test(c));
}

/** Which of the given pin ids are taken: a claimed pin, or a reservation still holding the name. */
export async function takenPinIds(ids: string[], now = new Date()): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const [pins, held] = await Promise.all([
    PinModel.find({ _id: { $in: ids } }, { _id: 1 }).lean(),
    ReservationModel.find({ _id: { $in: ids } }, { _id: 1, state: 1, expires_at: 1 }).lean(),
  ]);
  const taken = new Set<string>(pins.map((p) => String(p._id)));
  // Filtered here, not in the query: FerretDB uses an index only for `_id` filters.
  for (const r of held) if (r.state === 'held' && r.expires_at > now) taken.add(String(r._id));
  return taken;
}

/**
 * Whether `name` is free in `country_code` and, when it is not, up to `count` alternatives that are each
 * free themselves (checked together, a batch at a time) and never the taken name. A free name has no
 * suggestions. The caller validates the name's shape and caps `count` per its contract.
 */
export async function nameAvailability(input: {
  country_code: string;
  name: string;
  count?: number;
}): Promise<NameAvailability> {
  const country = input.country_code.toUpperCase();
  const name = normalizePinName(input.name);
  const count = Math.max(0, Math.min(input.count ?? DEFAULT_SUGGESTION_COUNT, MAX_PREVIEW_SUGGESTIONS));
  const now = new Date();
  const taken = await takenPinIds([pinId(country, name)], now);
  if (!taken.has(pinId(country, name))) return { is_available: true, suggestions: [] };

  const suggestions: string[] = [];
  const seen = new Set<string>([name]);
  for (let round = 0; suggestions.length < count && round < 5; round++) {
    const batch = candidateNames(name, country, round, Math.max(count, 5)).filter((c) => !seen.has(c));
    batch.forEach((c) => seen.add(c));
    const busy = await takenPinIds(
      batch.map((c) => pinId(country, c)),
      now,
    );
    for (const c of batch) {
      if (suggestions.length >= count) break;
      if (!busy.has(pinId(country, c))) suggestions.push(c);
    }
  }
  return { is_available: false, suggestions };
}
