import type { Request } from 'express';

export interface Page {
  page: number;
  page_size: number;
  skip: number;
}

/** page and page_size from a validated query (the contract sets defaults 1 and 20 and the bounds). */
export function pageOf(req: Request): Page {
  const page = Number(req.query.page ?? 1);
  const page_size = Number(req.query.page_size ?? 20);
  return { page, page_size, skip: (page - 1) * page_size };
}
