import {
  MongoBulkWriteError,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
  type BulkWriteResult,
} from 'mongodb';
import { WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { unavailableEngine } from '../../src/lib/http/engine-errors';

// The driver's own class (not exported from its index), as a request meets it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PoolClearedError } = require('mongodb/lib/cmap/errors') as { PoolClearedError: new (pool: unknown) => Error };

/**
 * The errors the driver raises when the document engine goes away mid-request, as the fault matrix met
 * them: a find fails server selection, and an insertMany wraps that failure in a bulk write error.
 */
describe('unavailableEngine', () => {
  const selection = () =>
    new MongoServerSelectionError('connect ECONNREFUSED 127.0.0.1:30120', { type: 'Unknown' } as never);

  it('names mongodb for a failed server selection and a network error', () => {
    expect(unavailableEngine(selection())).toBe('mongodb');
    expect(unavailableEngine(new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:30120'))).toBe('mongodb');
  });

  it('names mongodb for an insertMany whose server selection failed (a bulk write error around it)', () => {
    const wrapped = new MongoBulkWriteError(selection() as never, {} as BulkWriteResult);
    expect(wrapped.name).toBe('MongoBulkWriteError');
    expect(unavailableEngine(wrapped)).toBe('mongodb');
  });

  it('names mongodb for a connection pool cleared after another operation failed to connect', () => {
    const pool = {
      address: '127.0.0.1:29900',
      serverError: new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:29900'),
    };
    const cleared = new PoolClearedError(pool as never);
    expect(cleared.name).toBe('MongoPoolClearedError');
    expect(unavailableEngine(cleared)).toBe('mongodb');
  });

  it('names mongodb for a query the server gave up on: its time limit, or FerretDB cancelling it as it stops', () => {
    // As the fault matrix met it: FerretDB answered a find while its backend went away.
    const cancelled = new MongoServerError({
      message: '[msg_find.go:344 handler.handleMaxTimeMSError] [query_iterator.go:79] context canceled after delay',
      code: 1,
    });
    expect(unavailableEngine(cancelled)).toBe('mongodb');
    expect(unavailableEngine(new MongoServerError({ message: 'operation exceeded time limit', code: 50 }))).toBe(
      'mongodb',
    );
    expect(unavailableEngine(new MongoServerError({ message: 'Document failed validation', code: 121 }))).toBeNull();
  });

  it('names temporal for an update call that ran out of its deadline', () => {
    expect(
      unavailableEngine(new WorkflowUpdateRPCTimeoutOrCancelledError('Workflow update call timeout or cancelled')),
    ).toBe('temporal');
  });

  it('leaves a bulk write refused by the engine (a duplicate key) to the handler', () => {
    const duplicate = new MongoBulkWriteError(
      { message: 'E11000 duplicate key error', code: 11000, writeErrors: [] },
      {} as BulkWriteResult,
    );
    expect(unavailableEngine(duplicate)).toBeNull();
  });
});
