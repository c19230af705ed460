import { createHash, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

/** A UUID (version 5 layout) derived from the parts: the same parts always give the same id. */
export function stableUuid(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

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
