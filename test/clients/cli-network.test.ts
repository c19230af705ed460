import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import forge from 'node-forge';

const CLI = path.resolve(__dirname, '../../node_modules/.bin/lead-service');
const execFileAsync = promisify(execFile);
/** No kept credential: a file that does not exist. */
const NO_CONFIG = path.join(os.tmpdir(), 'lead-cli-network-none', 'config.json');

/** The CLI run as a user would, against `url`: its exit code and what it wrote. */
async function cli(url: string, ...args: string[]) {
  const env = {
    ...process.env,
    LEAD_SERVICE_URL: url,
    LEAD_SERVICE_TOKEN: 'lpat_unused',
    LEAD_SERVICE_CONFIG: NO_CONFIG,
  };
  return execFileAsync(CLI, ['token', 'status', ...args], { env }).then(
    (done) => ({ code: 0, ...done }),
    (failed: { code: number; stdout: string; stderr: string }) => failed,
  );
}

/** A port nothing listens on: one the system gave a server, closed again. */
async function closedPort() {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A self-signed certificate for 127.0.0.1, as PEM (nothing trusts it). */
function selfSigned() {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = randomBytes(8).toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: 'commonName', value: '127.0.0.1' }]);
  cert.setIssuer([{ name: 'commonName', value: '127.0.0.1' }]);
  cert.setExtensions([{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}

describe('the command line names why the service could not be reached', () => {
  it('a closed port: connection refused', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const run = await cli(url);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(`error: could not reach ${url}: connection refused (is the service running?)`);
    const json = await cli(url, '--json');
    expect(JSON.parse(json.stderr).error).toMatchObject({ reason: 'refused', code: 'ECONNREFUSED' });
  });

  it('a name under .invalid (RFC 6761: it never resolves): DNS', async () => {
    const url = 'http://lead-service.invalid';
    const run = await cli(url);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `error: could not reach ${url}: the host name lead-service.invalid does not resolve (DNS: ENOTFOUND; check the URL)`,
    );
    expect(JSON.parse((await cli(url, '--json')).stderr).error).toMatchObject({ reason: 'dns', code: 'ENOTFOUND' });
  });

  it('HTTPS with a self-signed certificate: TLS, with the certificate error', async () => {
    const server = https.createServer(selfSigned(), (_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const run = await cli(url);
      expect(run.code).toBe(1);
      // The certificate error's message is Node's own, and grows with the release (Node 24 adds its hint to try
      // --use-system-ca): what the CLI adds around it is held exactly.
      const line = run.stderr.trim();
      expect(line.startsWith(`error: could not reach ${url}: TLS failed: self-signed certificate`)).toBe(true);
      expect(line.endsWith(' (DEPTH_ZERO_SELF_SIGNED_CERT; is the certificate trusted? NODE_EXTRA_CA_CERTS)')).toBe(
        true,
      );
      expect(JSON.parse((await cli(url, '--json')).stderr).error).toMatchObject({
        reason: 'tls',
        code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a server that accepts and never answers, with --request-timeout: timeout', async () => {
    const sockets = new Set<net.Socket>();
    const server = net.createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const run = await cli(url, '--request-timeout', '0.5');
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(`error: could not reach ${url}: no answer within 0.5 s (timeout)`);
      expect(sockets.size).toBeGreaterThan(0); // it did connect: the wait was for the answer
      expect(JSON.parse((await cli(url, '--json', '--request-timeout', '0.5')).stderr).error).toMatchObject({
        reason: 'timeout',
      });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('--request-timeout takes a number of seconds above 0', async () => {
    const run = await cli('http://127.0.0.1:1', '--request-timeout', '0');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--request-timeout must be a number of seconds above 0');
  });
});
