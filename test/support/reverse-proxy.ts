import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ManagedProcess } from '../../src/lib/managed-process';
import { canConnect, freePort } from '../../tools/devstack/ports';
import { onPath } from '../../tools/devstack/binaries';

/** Debian's nginx, which the preparation step installs (tools/devstack/system-packages.ts, NGINX). */
export const NGINX = onPath('nginx') ?? '/usr/sbin/nginx';

export interface ReverseProxy {
  url: string;
  /** The address the proxy connects to the upstream from: what TRUST_PROXY names. */
  upstreamSource: string;
  stop(): Promise<void>;
}

/**
 * nginx on loopback in front of `upstream`, configured as a deployment's proxy is: it appends the peer's address
 * to X-Forwarded-For, forwards the scheme and host the client addressed (X-Forwarded-Proto and -Host, as Caddy
 * does), and it connects to the API from an address of its own (`proxy_bind`), the one address the API trusts (as
 * docker-compose.yml gives Caddy a fixed address on the network it shares with the API).
 */
export async function startReverseProxy(upstream: string, upstreamSource: string): Promise<ReverseProxy> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-service-nginx-'));
  // Run as root, nginx's workers drop to `nobody`, which must be able to write its buffers here.
  fs.chmodSync(dir, 0o777);
  const port = await freePort();
  const temp = (name: string) => `${name}_temp_path ${path.join(dir, name)};`;
  const conf = `
daemon off;
worker_processes 1;
pid ${path.join(dir, 'nginx.pid')};
error_log ${path.join(dir, 'error.log')} warn;
events { worker_connections 128; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${upstream};
      proxy_bind ${upstreamSource};
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      # The host and port the client addressed, as Caddy (deploy/Caddyfile) sends it: the API's own origin.
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_buffering off;
    }
  }
}
`;
  const confFile = path.join(dir, 'nginx.conf');
  fs.writeFileSync(confFile, conf);
  const nginx = new ManagedProcess({
    name: 'nginx',
    command: NGINX,
    args: ['-p', dir, '-c', confFile, '-e', path.join(dir, 'error.log')],
    logFile: path.join(dir, 'stdout.log'),
    ready: () => canConnect(port),
    readyTimeoutMs: 15_000,
  });
  await nginx.start();
  return {
    url: `http://127.0.0.1:${port}`,
    upstreamSource,
    async stop() {
      await nginx.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SourcedResult {
  status: number;
  body: any;
  headers: http.IncomingHttpHeaders;
}

/**
 * A JSON request sent from a chosen loopback source address (127.0.0.0/8 is all on `lo`), so that one test
 * plays several clients on one machine.
 */
export function callFrom(
  localAddress: string,
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<SourcedResult> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        localAddress,
        agent: false,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
