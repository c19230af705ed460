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
 * Logs each server of the document engine going unreachable and answering again: the line an operator (or the
 * fault matrix's failure report) reads to tell an engine that is down from a service that did not reconnect. Read
 * from the monitor's heartbeats as well as the server's description: a heartbeat fails within seconds of the
 * engine going away and succeeds once it answers, and from the pool: a connection a request could not open, or
 * one opened. With the description's changes alone, an outage shorter than the monitor's interval gave neither
 * line (mongodb 7 leaves the server known when a pooled connection is refused; the fault matrix's 6 s outage
 * logged nothing in some runs).
 */
export function logMongoReachability(logger: Logger): void {
  const unreachable = new Set<string>();
  const down = (address: string, error: string | undefined) => {
    if (unreachable.has(address)) return;
    unreachable.add(address);
    logger.warn({ address, error }, 'document engine unreachable');
  };
  const up = (address: string) => {
    if (unreachable.delete(address)) logger.warn({ address }, 'document engine reachable again');
  };
  const client = mongoose.connection.getClient();
  client.on('serverDescriptionChanged', (e) =>
    e.newDescription.type === 'Unknown' ? down(e.address, e.newDescription.error?.message) : up(e.address),
  );
  client.on('serverHeartbeatFailed', (e) => down(e.connectionId, e.failure?.message));
  client.on('serverHeartbeatSucceeded', (e) => up(e.connectionId));
  // A request that cannot open a connection: refused while the monitor has not checked yet (it checks every 10 s).
  client.on('connectionCheckOutFailed', (e) => {
    if (e.reason === 'connectionError') down(e.address, 'a connection could not be opened');
  });
  client.on('connectionReady', (e) => up(e.address));
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
