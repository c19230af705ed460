import type { QueryParams } from '../lib/contract-types';
import { csvRecord } from '../lib/csv';
import { findPage, pageEnvelope, type Page } from '../lib/pagination';
import { JobItemModel, jobItemsOf, type JobDoc } from './job.model';

/** How a job's results are answered: a page of JSON, or the whole set as a CSV or JSON Lines download. */
export type ResultsFormat = NonNullable<QueryParams<'getJobResults' | 'getResearchResults'>['format']>;

/** A complete result set as a file: its name, its type and its text, produced as it is read. */
export interface ResultsDownload {
  filename: string;
  contentType: string;
  chunks: AsyncIterable<string>;
}

const filterOf = (doc: JobDoc) => ({ ...jobItemsOf(doc.client_id, doc._id, 'result'), found: true });

/** One page of a job's results, in the order found: items of the kind the job's activities store (`Item`). */
export async function resultsPage<Item = Record<string, unknown>>(doc: JobDoc, page: Page) {
  const { docs, total } = await findPage<{ data: Item }>(
    JobItemModel,
    { filter: filterOf(doc), sort: { seq: 1 } },
    page,
  );
  return pageEnvelope(
    'results',
    docs.map((i) => i.data),
    total,
    page,
  );
}

/**
 * The complete result set as a download (CSV with a header row, by the service's one CSV writer, or JSON
 * Lines), read from a MongoDB cursor as its reader takes it, so a large job never sits in memory. A reader that
 * stops early closes the cursor.
 */
export function resultsDownload<Item extends object>(
  doc: JobDoc,
  opts: {
    format: 'csv' | 'jsonl';
    filename: string;
    columns: string[];
    /** A result item (as the job stored it) as the CSV's row: its columns by name. */
    row?: (d: Item) => object;
  },
): ResultsDownload {
  async function* chunks() {
    if (opts.format === 'csv') yield csvRecord(opts.columns);
    const cursor = JobItemModel.find(filterOf(doc)).sort({ seq: 1 }).lean<{ data: Item }>().cursor();
    try {
      for await (const item of cursor) {
        const data = (opts.row ? opts.row(item.data) : item.data) as Record<string, unknown>;
        yield opts.format === 'csv' ? csvRecord(opts.columns.map((c) => data[c])) : `${JSON.stringify(item.data)}\n`;
      }
    } finally {
      await cursor.close();
    }
  }
  return {
    filename: `${opts.filename}.${opts.format}`,
    contentType: opts.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    chunks: chunks(),
  };
}
