import { createRequire } from 'node:module';

/** What the guard touches of the driver's connection class (an internal of mongodb 6.20: see below). */
interface DriverConnection {
  id: number | '<monitor>';
  address: string;
  socket: { destroyed: boolean };
  onError(error: Error): void;
  writeCommand(command: unknown, options: unknown): Promise<void>;
}

// The copy of the driver Mongoose loads: its connection class (not exported from its index), and its network error
// (which its error handling recognises by class).
const driver = createRequire(require.resolve('mongoose'));
const { Connection } = driver('mongodb/lib/cmap/connection') as { Connection: { prototype: DriverConnection } };
const { MongoNetworkError } = driver('mongodb') as typeof import('mongodb');

const GUARDED = Symbol.for('lead-service.mongo-socket-guard');

/**
 * The driver sends a command by writing it to its connection's socket and, when the write is refused, waits for
 * 'drain' (mongodb 6.20; 7.9 still does). A socket that is destroyed but has not emitted 'close' yet (the moment
 * after the engine closed it) refuses the write without an error and never drains, and nothing else ends that
 * wait: the command never settles. When it is the server monitor's heartbeat, the monitor stays "checking" for
 * good and the engine is never seen again: after the document engine closed its connections at once on a restart, the fault
 * matrix saw every server selection fail for minutes while a fresh client reached the engine at once. The window
 * is real because a pool connection's close marks the server unknown and asks the monitor to check at once, in the
 * same turn of the event loop as the monitor's own socket closing.
 *
 * Here a write to a destroyed socket fails at once, as the network error a closed connection gives: the monitor's
 * check fails and its next one connects anew, and an operation fails (and is retried) instead of hanging.
 */
export function failWritesToDestroyedSockets(): void {
  const proto = Connection.prototype as DriverConnection & { [GUARDED]?: true };
  if (proto[GUARDED]) return;
  const write = proto.writeCommand;
  if (typeof write !== 'function')
    throw new Error('mongodb: Connection.prototype.writeCommand is gone; see this guard');
  proto.writeCommand = function writeCommand(this: DriverConnection, command, options) {
    if (this.socket.destroyed) {
      const error = new MongoNetworkError(`connection ${this.id} to ${this.address} closed`);
      this.onError(error);
      return Promise.reject(error);
    }
    return write.call(this, command, options);
  };
  proto[GUARDED] = true;
}
