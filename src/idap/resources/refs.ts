import { RESOURCE_TYPES, type ResourceType } from './resource.model';

export const MEDIA_REF_MESSAGE = 'media refs are served by GET /api/v1/idap/media/{media_id}';
export const RESOURCE_NOT_FOUND = 'resource_not_found';

const REF = /^idap:\/\/([a-z_]+)\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export type ParsedRef = { ok: true; type: ResourceType; id: string } | { ok: false; error: string };

/** Reads `idap://<resource_type>/<resource_id>`; anything else is answered with the interface's texts. */
export function parseRef(ref: string): ParsedRef {
  const m = REF.exec(ref);
  if (!m) return { ok: false, error: `Invalid IDAP ref ${ref}: expected idap://<resource_type>/<resource_id>` };
  if (m[1] === 'media') return { ok: false, error: MEDIA_REF_MESSAGE };
  if (!(RESOURCE_TYPES as readonly string[]).includes(m[1])) {
    return {
      ok: false,
      error: `Invalid IDAP ref ${ref}: unknown resource type ${m[1]} (one of ${RESOURCE_TYPES.join(', ')}, or media)`,
    };
  }
  return { ok: true, type: m[1] as ResourceType, id: m[2] };
}

/** A comma-separated parameter as a list of distinct non-empty names. */
export function csv(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}
