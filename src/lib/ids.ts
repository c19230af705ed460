import { createHash, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

/**
 * The ids derived so far: SHA-256 of the parts in a UUID's layout, with 5 in its version field. That is not RFC 9562
 * version 5 (SHA-1 over a namespace and a name: uuidV5 below), but ids stored under it are found again by deriving
 * them anew (the lead index's resources from their natural keys, media from their bytes, a watch run's job from
 * its run, also on an activity's retry), so changing it would orphan every stored record: it stays for those
 * kinds. New kinds of derived ids use derivedUuid.
 */
export function stableUuid(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * An RFC 9562 version 5 UUID: SHA-1 over the namespace's 16 bytes and the name's UTF-8, version 5, variant 10.
 * Written here rather than taken from the `uuid` package: its versions since 12 are ES modules only, which the
 * tests' CommonJS runtime cannot load, and the algorithm is these few lines (held to the RFC's test vector).
 */
export function uuidV5(name: string, namespace: string): string {
  const space = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (space.length !== 16) throw new Error(`not a UUID: ${namespace}`);
  const hash = createHash('sha1').update(space).update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The service's own namespace for the ids it derives (RFC 9562 v5): fixed once, never to change. */
export const SERVICE_NAMESPACE = '8d08d993-5de7-42a6-9455-f9cdbd715c5f';

/** An RFC 9562 version 5 UUID of the parts in the service's namespace: the same parts always give the same id. */
export const derivedUuid = (...parts: string[]): string => uuidV5(parts.join('\u0000'), SERVICE_NAMESPACE);

/** Schema options shared by every document: UUID string ids and ISO timestamps named as the API names them. */
export const baseSchemaOptions = {
  timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' },
  versionKey: false,
} as const;

/** A date as the API writes it (ISO 8601), null for none: a date that is always there stays a string. */
export function iso(d: Date): string;
export function iso(d: Date | null | undefined): string | null;
export function iso(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}
