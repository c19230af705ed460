/** What one search read, for the benchmark and the tests (searchResources' `trace`). */
export interface SearchTrace {
  /** Postings of the query's terms gone through, one per resource and term (whether cached or read). */
  postings: number;
  /** Resources scored. */
  candidates: number;
  /** Documents this search read from the database (the rest came from the process's cache). */
  fromDatabase: number;
  /** Queries this search sent to the database (0: answered from the process's cache alone). */
  queries: number;
}

/** A trace with nothing counted yet. */
export const newSearchTrace = (): SearchTrace => ({ postings: 0, candidates: 0, fromDatabase: 0, queries: 0 });
