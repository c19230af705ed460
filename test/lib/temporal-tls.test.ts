import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { randomBytes } from 'node:crypto';
import forge from 'node-forge';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../../src/lib/config';
import { createTemporalClient, pingTemporal, temporalConnectionOf } from '../../src/lib/engines/temporal';
import { EncryptionCodec } from '../../src/lib/engines/payload-codec';

/** A certificate signed by `issuer` (or self-signed), as PEM. */
function certificate(cn: string, issuer?: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey }) {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = randomBytes(8).toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: 'commonName', value: cn }]);
  cert.setIssuer(issuer ? issuer.cert.subject.attributes : [{ name: 'commonName', value: cn }]);
  cert.setExtensions(
    issuer
      ? [{ name: 'subjectAltName', altNames: [{ type: 2, value: cn }] }]
      : [
          { name: 'basicConstraints', cA: true },
          { name: 'keyUsage', keyCertSign: true },
        ],
  );
  cert.sign(issuer?.key ?? keys.privateKey, forge.md.sha256.create());
  return {
    cert,
    key: keys.privateKey,
    certPem: forge.pki.certificateToPem(cert),
    keyPem: forge.pki.privateKeyToPem(keys.privateKey),
  };
}

/**
 * A cluster's TLS frontend, as Temporal Cloud or a self-hosted frontend with mTLS presents it: TLS with HTTP/2,
 * a client certificate required, in front of the run's dev server (which speaks plaintext gRPC).
 */
function tlsFrontend(server: { certPem: string; keyPem: string }, caPem: string, upstream: string) {
  const [host, port] = upstream.split(':');
  const frontend = tls.createServer(
    {
      cert: server.certPem,
      key: server.keyPem,
      ca: caPem,
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (socket) => {
      const backend = net.connect(Number(port), host);
      socket.pipe(backend).pipe(socket);
      const close = () => (socket.destroy(), backend.destroy());
      socket.on('error', close);
      backend.on('error', close);
    },
  );
  return new Promise<{ address: string; close(): void }>((resolve) =>
    frontend.listen(0, '127.0.0.1', () =>
      resolve({ address: `127.0.0.1:${(frontend.address() as net.AddressInfo).port}`, close: () => frontend.close() }),
    ),
  );
}

describe("Temporal over mTLS, for the API's client and the worker alike", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-tls-'));
  const ca = certificate('lead-service test CA');
  const server = certificate('temporal.internal', ca);
  const client = certificate('lead-service-worker', ca);
  let frontend: { address: string; close(): void };
  beforeAll(async () => {
    frontend = await tlsFrontend(server, ca.certPem, process.env.TEMPORAL_ADDRESS!);
  });
  afterAll(() => {
    frontend?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const settingsWith = (extra: Record<string, string>) => {
    const certFile = path.join(dir, 'client.pem');
    fs.writeFileSync(certFile, client.certPem);
    return loadConfig({
      TEMPORAL_ADDRESS: frontend.address,
      TEMPORAL_TLS_CERT: certFile, // a path
      TEMPORAL_TLS_KEY: client.keyPem, // PEM text
      TEMPORAL_TLS_CA: ca.certPem,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      ...extra,
    });
  };
  const codec = new EncryptionCodec(randomBytes(32).toString('hex'));

  it("the client and a worker's native connection reach the cluster with the client certificate", async () => {
    const config = settingsWith({});
    const target = temporalConnectionOf(config, config.TEMPORAL_ADDRESS!);
    const temporal = createTemporalClient(target, 'default', codec);
    try {
      await pingTemporal(temporal);
    } finally {
      await temporal.connection.close();
    }
    const native = await NativeConnection.connect(target);
    try {
      const { namespaceInfo } = await native.workflowService.describeNamespace({ namespace: 'default' });
      expect(namespaceInfo?.name).toBe('default');
    } finally {
      await native.close();
    }
  });

  it('without the client certificate, or trusting another CA, the cluster cannot be reached', async () => {
    const config = settingsWith({});
    const target = temporalConnectionOf(config, config.TEMPORAL_ADDRESS!);
    const noClientCert = { ...target, tls: { ...target.tls, clientCertPair: undefined } };
    const otherCa = {
      ...target,
      tls: { ...target.tls, serverRootCACertificate: Buffer.from(certificate('other CA').certPem) },
    };
    for (const attempt of [noClientCert, otherCa]) {
      const failed = await NativeConnection.connect(attempt).then(
        async (c) => {
          await c.close();
          return false;
        },
        () => true,
      );
      expect(failed).toBe(true);
    }
  });

  it('plaintext without any TLS setting, TLS as soon as an API key is given', () => {
    expect(temporalConnectionOf(loadConfig({}), 'localhost:7233')).toEqual({ address: 'localhost:7233' });
    expect(temporalConnectionOf(loadConfig({ TEMPORAL_API_KEY: 'tmprl-key' }), 'ns.tmprl.cloud:7233')).toEqual({
      address: 'ns.tmprl.cloud:7233',
      tls: {},
      apiKey: 'tmprl-key',
    });
  });
});
