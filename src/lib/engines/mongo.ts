import mongoose from 'mongoose';

/**
 * One Mongoose connection per process. Commands are not buffered: while MongoDB is down a request
 * fails at once (and becomes a 503) instead of hanging until the driver gives up.
 */
export async function connectMongo(uri: string, dbName: string): Promise<typeof mongoose> {
  mongoose.set('bufferCommands', false);
  mongoose.set('strictQuery', true);
  await mongoose.connect(uri, { dbName, serverSelectionTimeoutMS: 3000, autoIndex: false });
  // Indexes are part of correctness here (unique slugs, e-mails): build them before serving.
  await Promise.all(Object.values(mongoose.connection.models).map((m) => m.createIndexes()));
  return mongoose;
}

export async function pingMongo(): Promise<void> {
  const db = mongoose.connection.db;
  if (!db) throw new Error('not connected');
  await db.admin().command({ ping: 1 });
}
