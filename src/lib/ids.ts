import { randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

/** Schema options shared by every document: UUID string ids and ISO timestamps named as the API names them. */
export const baseSchemaOptions = {
  timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' },
  versionKey: false,
} as const;

export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
