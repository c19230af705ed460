import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { CONFIG_KEYS } from '../../src/lib/config';
import { WORKER_SHUTDOWN_FORCE_MS } from '../../src/worker/create-worker';

const root = path.join(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  ports?: string[];
  env_file?: { path: string }[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  volumes?: string[];
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const services = Object.entries(compose.services);
const seconds = (duration: string) => Number(/^(\d+)s$/.exec(duration)?.[1] ?? NaN);

/**
 * docker-compose.yml cannot be run here (no Docker engine); what can be checked without it is checked: images
 * that exist only as pinned versions, every setting the service reads reachable from .env, and the shape that lets
 * the API and the workers scale and stop cleanly.
 */
describe('docker-compose.yml', () => {
  it('pins every image to a version (no latest, no bare major)', () => {
    const images = services.filter(([, s]) => s.image).map(([name, s]) => [name, s.image!]);
    expect(images.length).toBeGreaterThan(8);
    for (const [name, image] of images) {
      expect({ name, image, pinned: /:v?\d+\.\d+(?:\.\d+)?(?:-[a-z0-9]+)?$/.test(image) }).toEqual({
        name,
        image,
        pinned: true,
      });
    }
    expect(images.map(([, image]) => image).join(' ')).not.toMatch(/minio|auto-setup/);
  });

  it('passes .env whole to the API and the workers; .env.example documents every setting the service reads', () => {
    const example = read('.env.example');
    const documented = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    for (const name of ['api', 'worker', 'worker-bulk']) {
      const service = compose.services[name];
      expect(service.env_file?.map((f) => f.path)).toEqual(['.env']);
      expect(service.build).toBeDefined();
    }
    const setHere = new Set(Object.keys(compose.services.api.environment ?? {}));
    const missing = CONFIG_KEYS.filter((key) => !documented.has(key) && !setHere.has(key));
    expect(missing).toEqual([]);
  });

  it("scales: API behind the proxy, Temporal's gRPC unpublished, workers checked, graced past drain", () => {
    expect(compose.services.api.ports).toBeUndefined();
    expect(compose.services.proxy.ports).toEqual(['8080:8080']);
    expect(compose.services.temporal.ports).toBeUndefined();
    expect(compose.services.api.healthcheck?.test.join(' ')).toContain('/readyz');
    // The interactive and the bulk task queue each have workers of their own, scaled apart.
    expect(['worker', 'worker-bulk'].map((name) => compose.services[name].environment!.WORKER_TASK_QUEUES)).toEqual([
      'interactive',
      'bulk',
    ]);
    for (const worker of [compose.services.worker, compose.services['worker-bulk']]) {
      expect(worker.ports).toBeUndefined();
      expect(worker.healthcheck?.test.join(' ')).toContain(worker.environment!.WORKER_HEALTH_FILE);
      expect(seconds(worker.stop_grace_period!) * 1000).toBeGreaterThan(WORKER_SHUTDOWN_FORCE_MS);
    }
    // Files the services mount are in the repository.
    for (const [, service] of services) {
      for (const volume of service.volumes ?? []) {
        if (volume.startsWith('./')) expect(fs.existsSync(path.join(root, volume.split(':')[0]))).toBe(true);
      }
    }
  });

  it('the image runs a supported Node LTS, keeps .env out and bundles the workflows at build time', () => {
    const dockerfile = read('Dockerfile');
    const nodeMajors = [...dockerfile.matchAll(/^FROM node:(\d+)/gm)].map((m) => Number(m[1]));
    expect(nodeMajors.length).toBe(2);
    for (const major of nodeMajors) expect(major % 2 === 0 && major >= 22).toBe(true);
    expect(dockerfile).toContain('bundle-cli.js');
    expect(dockerfile).toContain('WORKFLOW_BUNDLE_PATH=');
    expect(read('.dockerignore').split('\n')).toEqual(expect.arrayContaining(['.env', '.env.*']));
  });
});
