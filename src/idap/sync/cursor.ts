import { AppError } from '../../lib/errors';
import { RESOURCE_TYPES, type ResourceType } from '../resources/resource.model';
import { parseFlagFilter } from '../resources/flags';

/**
 * A listing's cursor: the position it goes on from and the filter it was issued for, as opaque text. The client
 * sends it back as it was; anything else is answered 422.
 */

/** A position in (modified_at, _id) order: after every resource before it. `id` null: after all at `at`. */
export interface Position {
  /** modified_at in ms since the epoch; null: before every resource. */
  at: number | null;
  id: string | null;
}

/** What a cursor carries (base64url of its JSON): the version, the type and flags it was issued for, a position. */
interface CursorState {
  v: 1;
  type: ResourceType;
  /** The flag filter, normalised (flagKey). */
  flags: string;
  at: number;
  id: string | null;
}

const CURSOR_KEYS = ['v', 'type', 'flags', 'at', 'id'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** JavaScript's Date range, in ms either side of the epoch. */
export const MAX_TIME = 8.64e15;

/** A filter's identity, whatever its order and repetitions: what a cursor remembers. */
export function flagKey(flags: string | undefined): string {
  const { require, exclude } = parseFlagFilter(flags);
  return [...new Set([...require, ...exclude.map((f) => `!${f}`)])].sort().join(',');
}

export const badCursor = (message: string) =>
  AppError.invalid(`Invalid cursor: ${message}`, [{ location: 'query', field: 'cursor', message }]);

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

/** A cursor this service issued, for this type; 422 otherwise. */
export function decodeCursor(cursor: string, type: ResourceType): CursorState {
  let state: Record<string, unknown>;
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor('not a cursor this service issued');
  }
  const valid =
    state !== null &&
    typeof state === 'object' &&
    !Array.isArray(state) &&
    Object.keys(state).length === CURSOR_KEYS.length &&
    CURSOR_KEYS.every((k) => k in state) &&
    state.v === 1 &&
    (RESOURCE_TYPES as readonly string[]).includes(state.type as string) &&
    typeof state.flags === 'string' &&
    state.flags.length <= 1000 &&
    Number.isSafeInteger(state.at) &&
    Math.abs(state.at as number) <= MAX_TIME &&
    (state.id === null || (typeof state.id === 'string' && UUID.test(state.id)));
  if (!valid) throw badCursor('not a cursor this service issued');
  const parsed = state as unknown as CursorState;
  if (parsed.type !== type) throw badCursor(`it continues a listing of ${parsed.type}, not ${type}`);
  return parsed;
}
