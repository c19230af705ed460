import type { Model } from 'mongoose';

/**
 * Any of the service's models, for a helper that works on every collection alike (paging, bulk inserts, integer
 * ids, a tenant's content): mongoose's own base type, its `Model` class's. Such a helper names what it reads with
 * `lean<T>()`; a model's own document type differs per schema and would not fit one parameter.
 */
export type AnyModel = typeof Model;
