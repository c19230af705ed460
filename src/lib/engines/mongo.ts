import mongoose from 'mongoose';
import ConnectionString from 'mongodb-connection-string-url';
import { watchMongoPool } from '../metrics';
import { failWritesToDestroyedSockets } from './mongo-socket-guard';
import type { Logger } from '../logger';

/** The pool's bound: how many connections, and how long an operation may wait for one (then it fails: 503). */
export interface MongoPoolOptions {
  maxPoolSize: number;
  waitQueueTimeoutMS: number;
}

/**
 * One Mongoose connection per process. Commands are not buffered: while MongoDB is down a request
 * fails at once (and becomes a 503) instead of hanging until the driver gives up.
 */
export async function connectMongo(uri: string, dbName: string, pool?: MongoPoolOptions): Promise<typeof mongoose> {
  failWritesToDestroyedSockets();
  mongoose.set('bufferCommands', false);
  mongoose.set('strictQuery', true);
  await mongoose.connect(uri, {
    dbName,
    serverSelectionTimeoutMS: 3000,
    autoIndex: false,
    ...pool,
    ...writeConcernFor(uri),
  });
  watchMongoPool(mongoose.connection.getClient());
  // Indexes are part of correctness here (unique slugs, e-mails): build them before serving.
  await Promise.all(Object.values(mongoose.connection.models).map((m) => m.createIndexes()));
  return mongoose;
}

/**
 * Logs each server of the document engine going unreachable and answering again, as the driver's monitor sees it:
 * the line an operator (or the fault matrix's failure report) reads to tell an engine that is down from a service
 * that did not reconnect.
 */
export function logMongoReachability(logger: Logger): void {
  const unreachable = new Set<string>();
  mongoose.connection.getClient().on('serverDescriptionChanged', (e) => {
    const down = e.newDescription.type === 'Unknown';
    if (down === unreachable.has(e.address)) return;
    if (down) {
      unreachable.add(e.address);
      logger.warn({ address: e.address, error: e.newDescription.error?.message }, 'document engine unreachable');
    } else {
      unreachable.delete(e.address);
      logger.warn({ address: e.address }, 'document engine reachable again');
    }
  });
}

export async function pingMongo(): Promise<void> {
  const db = mongoose.connection.db;
  if (!db) throw new Error('not connected');
  await db.admin().command({ ping: 1 });
}

/**
 * On a replica set (a `replicaSet` in the URI, or an SRV record, which is how hosted clusters are reached) a write
 * is acknowledged only once a majority of members hold it, so an acknowledged write survives a failover; a URI
 * that sets `w` itself decides. A single server has no majority to wait for.
 */
export function writeConcernFor(uri: string): { writeConcern?: { w: 'majority'; journal: true } } {
  const parsed = new ConnectionString(uri);
  if (parsed.searchParams.has('w')) return {};
  const replicated = parsed.searchParams.has('replicaSet') || parsed.isSRV;
  return replicated ? { writeConcern: { w: 'majority', journal: true } } : {};
}
