import type { AnyModel } from './any-model';
import type { SharedParameters } from './contract-types';

export interface Page {
  page: number;
  page_size: number;
  skip: number;
}

/** page and page_size from a validated query (the contract sets defaults 1 and 20 and the bounds). */
export function pageOf(query: { page?: SharedParameters['Page']; page_size?: SharedParameters['PageSize'] }): Page {
  const page = query.page ?? 1;
  const page_size = query.page_size ?? 20;
  return { page, page_size, skip: (page - 1) * page_size };
}

/** The contract's list envelope, `{<name>: items, total, page, page_size}`. */
export function pageEnvelope<K extends string, T>(name: K, items: T[], total: number, page: Page) {
  return { [name]: items, total, page: page.page, page_size: page.page_size } as { [key in K]: T[] } & {
    total: number;
    page: number;
    page_size: number;
  };
}

export interface PageQuery {
  filter: object;
  sort: Record<string, 1 | -1>;
  projection?: object;
  /** Query options, e.g. `{ allTenants: true }` for a deliberate cross-tenant list. */
  options?: Record<string, unknown>;
}

/** One page of documents and the count of all that match, read side by side. */
export async function findPage<T>(
  model: AnyModel,
  query: PageQuery,
  page: Page,
): Promise<{ docs: T[]; total: number }> {
  const [docs, total] = await Promise.all([
    model
      .find(query.filter, query.projection, query.options)
      .sort(query.sort)
      .skip(page.skip)
      .limit(page.page_size)
      .lean<T[]>(),
    model.countDocuments(query.filter).setOptions(query.options ?? {}),
  ]);
  return { docs, total };
}
