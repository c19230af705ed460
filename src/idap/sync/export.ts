import type { Response } from 'express';
import type { QueryParams } from '../../lib/contract-types';
import { csvRecord } from '../../lib/csv';
import type { ResourceType } from '../resources/resource.model';
import { resourceView, type StoredResource } from '../resources/view';

/** The data fields a CSV download of a type has when the request names none (`fields`): what a person reads first. */
export const EXPORT_COLUMNS: Record<ResourceType, string[]> = {
  businesses: [
    'name',
    'category',
    'address',
    'country_code',
    'region_code',
    'phone',
    'website',
    'rating',
    'reviews_count',
  ],
  domains: ['domain', 'title', 'website'],
  contacts: ['name', 'title', 'email', 'company', 'domain'],
  emails: ['address', 'domain'],
  phones: ['number', 'normalized'],
  company_registry: ['name', 'registration_number', 'country_code', 'domain'],
  linkedin_profiles: ['name', 'headline', 'company', 'url', 'kind'],
};

/** The listing's formats that answer a download rather than a page. */
export type DownloadFormat = Extract<QueryParams<'listResources'>['format'], 'csv' | 'jsonl'>;

/** A listing as a file: its name, its type, and its text produced a record at a time as the resources are read. */
export interface ResourcesDownload {
  filename: string;
  contentType: string;
  chunks: AsyncIterable<string>;
}

const valueAt = (data: Record<string, unknown>, path: string) =>
  path
    .split('.')
    .reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), data);

/**
 * Resources as CSV (a header row: idap_ref, the data fields, flags, created_at, modified_at; by the service's one
 * CSV writer) or JSON Lines (each resource as the JSON page has it, narrowed by `fields`), one record per resource
 * as `resources` yields it.
 */
export function resourcesDownload(
  type: ResourceType,
  resources: AsyncIterable<StoredResource>,
  format: DownloadFormat,
  fields: string[],
): ResourcesDownload {
  const columns = fields.length ? fields : EXPORT_COLUMNS[type];
  async function* chunks() {
    if (format === 'csv') yield csvRecord(['idap_ref', ...columns, 'flags', 'created_at', 'modified_at']);
    for await (const doc of resources) {
      if (format === 'jsonl') {
        yield `${JSON.stringify(resourceView(doc, fields))}\n`;
        continue;
      }
      const view = resourceView(doc);
      yield csvRecord([
        view.idap_ref,
        ...columns.map((c) => valueAt(view.data, c)),
        view.flags,
        view.created_at,
        view.modified_at,
      ]);
    }
  }
  return {
    filename: `${type}.${format}`,
    contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    chunks: chunks(),
  };
}

/**
 * Writes a download as the connection takes it (waiting for `drain` when the socket's buffer is full), so a
 * listing of any size never sits in memory; a client that goes away stops the reading (the database cursor is
 * closed). A failure once the first bytes are out can no longer become an error answer: the connection is cut,
 * so the client sees a truncated download, never a complete-looking one.
 */
export async function sendDownload(res: Response, download: ResourcesDownload): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', download.contentType);
  res.setHeader('Content-Disposition', `attachment; filename="${download.filename}"`);
  try {
    for await (const chunk of download.chunks) {
      if (res.destroyed) break;
      if (!res.write(chunk)) await drained(res);
    }
  } catch (error) {
    if (!res.headersSent) throw error;
    res.destroy(error as Error);
    return;
  }
  res.end();
}

/** Until the socket takes more (drain) or the client went away (close). */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
