import { MongoBulkWriteError, MongoNetworkError, MongoServerSelectionError, type BulkWriteResult } from 'mongodb';
import { unavailableEngine } from '../../src/lib/http/engine-errors';

/**
 * The errors the driver raises when the document engine goes away mid-request, as the fault matrix met
 * them: a find fails server selection, and an insertMany wraps that failure in a bulk write error.
 */
describe('unavailableEngine', () => {
  const selection = () => new MongoServerSelectionError('connect ECONNREFUSED 127.0.0.1:30120', { type: 'Unknown' } as never);

  it('names mongodb for a failed server selection and a network error', () => {
    expect(unavailableEngine(selection())).toBe('mongodb');
    expect(unavailableEngine(new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:30120'))).toBe('mongodb');
  });

  it('names mongodb for an insertMany whose server selection failed (a bulk write error around it)', () => {
    const wrapped = new MongoBulkWriteError(selection() as never, {} as BulkWriteResult);
    expect(wrapped.name).toBe('MongoBulkWriteError');
    expect(unavailableEngine(wrapped)).toBe('mongodb');
  });

  it('leaves a bulk write refused by the engine (a duplicate key) to the handler', () => {
    const duplicate = new MongoBulkWriteError({ message: 'E11000 duplicate key error', code: 11000, writeErrors: [] }, {} as BulkWriteResult);
    expect(unavailableEngine(duplicate)).toBeNull();
  });
});
