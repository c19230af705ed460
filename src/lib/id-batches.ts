import { chunksOf } from './arrays';

/**
 * Ids per `$in`: FerretDB answers an `$in` of up to 1,000 ids from the _id index and scans the collection above
 * that, so whoever reads, updates or deletes many documents by id asks in parts of this size.
 */
export const IDS_PER_IN = 500;

/** `ids` in parts of IDS_PER_IN, one `$in` each. */
export const idBatches = <T>(ids: readonly T[]): T[][] => chunksOf(ids, IDS_PER_IN);
