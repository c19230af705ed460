import type { Response } from 'express';
import { csvRecord } from '../lib/csv';
import type { Page } from '../lib/pagination';
import { JobItemModel, jobItemsOf, type JobDoc } from './job.model';

export type ResultsFormat = 'json' | 'csv' | 'jsonl';

const filterOf = (doc: JobDoc) => ({ ...jobItemsOf(doc.client_id, doc._id, 'result'), found: true });

/** One page of a job's results, in the order found. */
export async function resultsPage(doc: JobDoc, page: Page) {
  const [items, total] = await Promise.all([
    JobItemModel.find(filterOf(doc))
      .sort({ seq: 1 })
      .skip(page.skip)
      .limit(page.page_size)
      .lean<{ data: Record<string, unknown> }[]>(),
    JobItemModel.countDocuments(filterOf(doc)),
  ]);
  return { results: items.map((i) => i.data), total, page: page.page, page_size: page.page_size };
}

/**
 * The complete result set as a download (CSV with a header row, by the service's one CSV writer, or JSON
 * Lines), streamed from a MongoDB cursor with back-pressure, so a large job never sits in memory.
 */
export async function streamResults(
  res: Response,
  doc: JobDoc,
  opts: {
    format: 'csv' | 'jsonl';
    filename: string;
    columns: string[];
    row?: (d: Record<string, any>) => Record<string, unknown>;
  },
) {
  res.status(200);
  res.setHeader(
    'Content-Type',
    opts.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
  );
  res.setHeader('Content-Disposition', `attachment; filename="${opts.filename}.${opts.format}"`);
  const write = async (chunk: string) => {
    if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
  };
  if (opts.format === 'csv') await write(csvRecord(opts.columns));
  const cursor = JobItemModel.find(filterOf(doc)).sort({ seq: 1 }).lean<{ data: Record<string, any> }>().cursor();
  try {
    for await (const item of cursor) {
      if (res.destroyed) break;
      const data = opts.row ? opts.row(item.data) : item.data;
      await write(
        opts.format === 'csv' ? csvRecord(opts.columns.map((c) => data[c])) : `${JSON.stringify(item.data)}\n`,
      );
    }
  } finally {
    await cursor.close();
  }
  res.end();
}
