import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** A port that was free a moment ago on loopback (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The preferred port when it is free (stable URLs for `npm start`), otherwise any free one. */
export async function preferredPort(preferred: number | undefined): Promise<number> {
  if (preferred && (await isPortFree(preferred))) return preferred;
  return freePort();
}

export function canConnect(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface EnginePorts {
  mongo?: number;
  redis?: number;
  temporal?: number;
  temporalUi?: number;
}

const PORTS_FILE = 'devstack-ports.json';

/**
 * The ports a data directory's engines prefer: the ones it used last time (stable URLs across restarts), else
 * `firstChoice` when given, else four derived from its path, below Linux's ephemeral range, so two directories
 * started side by side aim at different ports and neither takes the other's. A port found busy still falls back
 * to a free one.
 */
export function portsForDir(dataDir: string, firstChoice?: EnginePorts): EnginePorts {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, PORTS_FILE), 'utf8')) as EnginePorts;
  } catch {
    if (firstChoice) return firstChoice;
    const slot = createHash('sha256').update(path.resolve(dataDir)).digest().readUInt32BE(0) % 1200;
    const base = 20_000 + slot * 10;
    return { mongo: base, redis: base + 1, temporal: base + 2, temporalUi: base + 3 };
  }
}

/** Remembers the ports the engines got, for the next start on the same directory. */
export function rememberPorts(dataDir: string, ports: EnginePorts): void {
  fs.writeFileSync(path.join(dataDir, PORTS_FILE), JSON.stringify(ports));
}

export const portOf = (url: string | null | undefined): number | undefined => {
  const match = url ? /:(\d+)\/?$/.exec(url) : null;
  return match ? Number(match[1]) : undefined;
};
