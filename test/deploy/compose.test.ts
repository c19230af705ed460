import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { parse } from 'yaml';
import { CONFIG_ENV_NAMES, CONFIG_KEYS, FILE_SUFFIX } from '../../src/lib/config';
import { WORKER_SHUTDOWN_FORCE_MS } from '../../src/worker/create-worker';

const root = path.join(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

interface Mount {
  type: string;
  source: string;
  target: string;
  read_only?: boolean;
  volume?: { subpath?: string };
}

interface Service {
  image?: string;
  build?: unknown;
  profiles?: string[];
  user?: string;
  ports?: string[];
  env_file?: { path: string }[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  volumes?: (string | Mount)[];
  restart?: string;
  depends_on?: Record<string, { condition: string }>;
  entrypoint?: string[];
  command?: string[];
  networks?: string[] | Record<string, { ipv4_address?: string } | null>;
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, Service>;
  networks: Record<string, { ipam?: { config: { subnet: string }[] } } | null>;
};
const services = Object.entries(compose.services);
/** The files and folders of the repository a service mounts (short syntax `./path:target[:ro]`). */
const boundFiles = (service: Service) =>
  (service.volumes ?? [])
    .filter((v): v is string => typeof v === 'string' && v.startsWith('./'))
    .map((v) => v.split(':')[0]);
/** The folders of the secrets volume a service mounts, by where; the whole volume is subpath ''. */
const secretMounts = (service: Service) =>
  (service.volumes ?? [])
    .map((v) =>
      typeof v === 'string'
        ? v.startsWith('secrets:')
          ? { subpath: '', target: v.split(':')[1], readOnly: v.endsWith(':ro') }
          : undefined
        : v.source === 'secrets'
          ? { subpath: v.volume?.subpath ?? '', target: v.target, readOnly: v.read_only === true }
          : undefined,
    )
    .filter((m) => m !== undefined);
/** One-shot jobs: rerun on failure, never restarted once they succeeded. */
const isJob = (service: Service) => /^on-failure:\d+$/.test(service.restart ?? '');
const seconds = (duration: string) => Number(/^(\d+)s$/.exec(duration)?.[1] ?? NaN);

/**
 * docker-compose.yml cannot be run here (no Docker engine); what can be checked without it is checked: images
 * that exist only as pinned versions, every setting the service reads reachable from .env, and the shape that lets
 * the API and the workers scale and stop cleanly.
 */
describe('docker-compose.yml', () => {
  it("pins every image by its exact tag and digest; the service's own image is built here", () => {
    const pulled = services.filter(([, s]) => !s.build).map(([name, s]) => [name, s.image ?? '']);
    expect(pulled.length).toBeGreaterThan(11);
    for (const [name, image] of pulled) {
      const pinned = /^[a-z0-9][\w./-]*:v?\d+\.\d+(?:\.\d+)?(?:-[a-z0-9]+)?@sha256:[0-9a-f]{64}$/.test(image);
      expect({ name, image, pinned }).toEqual({ name, image, pinned: true });
    }
    expect(pulled.map(([, image]) => image).join(' ')).not.toMatch(/minio|auto-setup|:latest/);
    // Everything built (the API, the workers and the jobs that run Node) is one image, from the Dockerfile.
    const built = services.filter(([, s]) => s.build);
    expect(built.map(([name]) => name).sort()).toEqual(['api', 'meili-key', 'secrets', 'worker', 'worker-bulk']);
    expect(new Set(built.map(([, s]) => `${String(s.build)} ${s.image}`))).toEqual(new Set(['. lead-service:local']));
  });

  it('gives the API and the workers only settings their configuration reads, and no secret they do not use', () => {
    for (const name of ['api', 'worker', 'worker-bulk']) {
      const service = compose.services[name];
      expect(service.env_file).toBeUndefined();
      const names = Object.keys(service.environment ?? {});
      // src/lib/config.ts's schema, each setting or its file form: nothing it does not read.
      expect({ name, unread: names.filter((n) => !CONFIG_ENV_NAMES.includes(n)) }).toEqual({ name, unread: [] });
      // Its secrets come as files of its own folder, never as values in the environment (docker inspect shows those).
      for (const key of [
        'MONGODB_URI',
        'REDIS_URL',
        'CREDENTIALS_KEY',
        'MEILISEARCH_API_KEY',
        'S3_SECRET_ACCESS_KEY',
      ]) {
        expect(service.environment![key]).toBeUndefined();
        expect(service.environment![`${key}${FILE_SUFFIX}`]).toMatch(/^\/run\/secrets\/app\/\w+$/);
      }
      // The one folder of the secrets volume it sees is its own: not Meilisearch's master key, Temporal's database
      // password, MongoDB's root password or Redis's config.
      expect(secretMounts(service)).toEqual([{ subpath: 'app', target: '/run/secrets/app', readOnly: true }]);
      const text = JSON.stringify(service.environment);
      expect(text).not.toMatch(/MEILI_MASTER_KEY|master_key|TEMPORAL_DB_PASSWORD|temporal-db|root_password|POSTGRES/);
    }
    // Every setting the file names exists in the schema (the subset above is not vacuous).
    expect(Object.keys(compose.services.api.environment!).length).toBeGreaterThan(20);
    expect(CONFIG_KEYS).toEqual(expect.arrayContaining(['MONGODB_URI', 'MEILISEARCH_API_KEY', 'METRICS_PORT']));
  });

  it('gives each service the folder of the secrets volume it reads, read-only; only the init jobs see them all', () => {
    const mounts = Object.fromEntries(
      services.filter(([, s]) => secretMounts(s).length).map(([name, s]) => [name, secretMounts(s)]),
    );
    const own = (subpath: string) => [{ subpath, target: `/run/secrets/${subpath}`, readOnly: true }];
    expect(mounts).toEqual({
      secrets: [{ subpath: '', target: '/secrets', readOnly: false }],
      'meili-key': [{ subpath: '', target: '/secrets', readOnly: false }],
      mongo: own('mongo'),
      redis: own('redis'),
      meilisearch: own('meili'),
      'temporal-db': own('temporal-db'),
      'temporal-schema': own('temporal-db'),
      temporal: own('temporal-db'),
      s3: own('s3'),
      's3-bucket': own('s3'),
      api: own('app'),
      worker: own('app'),
      'worker-bulk': own('app'),
      grafana: own('grafana'),
    });
    // The generator needs no network; MongoDB and Redis run with authentication, from the generated files.
    expect(compose.services.secrets).toMatchObject({ network_mode: 'none' });
    expect(compose.services.mongo.environment).toEqual({
      MONGO_INITDB_ROOT_USERNAME: 'root',
      MONGO_INITDB_ROOT_PASSWORD_FILE: '/run/secrets/mongo/root_password',
    });
    expect(boundFiles(compose.services.mongo)).toContain('./deploy/mongo-init.js');
    expect(compose.services.redis.command![1]).toBe('/run/secrets/redis/redis.conf');
    expect(compose.services.redis.healthcheck!.test.join(' ')).toContain('REDISCLI_AUTH=');
    expect(compose.services['temporal-db'].environment).toMatchObject({
      POSTGRES_PASSWORD_FILE: '/run/secrets/temporal-db/password',
    });
    expect(compose.services.meilisearch.command).toEqual([
      '/bin/meilisearch',
      '--config-file-path',
      '/run/secrets/meili/config.toml',
    ]);
    // No secret's value is written into the file itself.
    expect(read('docker-compose.yml')).not.toMatch(/PASSWORD:\s*\S|MASTER_KEY:|SECRET_ACCESS_KEY:\s/);
  });

  it('.env is optional: it documents exactly the variables the file reads from it, each with its default', () => {
    const example = read('.env.example');
    const documented = [...example.matchAll(/^# ([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]).sort();
    const interpolated = [
      ...new Set([...read('docker-compose.yml').matchAll(/\$\{([A-Z][A-Z0-9_]*)[:}]/g)].map((m) => m[1])),
    ].sort();
    expect(documented).toEqual(interpolated);
    // Every line of it is commented out: nothing needs setting for the one command to work.
    expect(example.split('\n').filter((line) => line.trim() && !line.startsWith('#'))).toEqual([]);
    for (const [, service] of services) expect(service.env_file).toBeUndefined();
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
    const bound = services.flatMap(([, service]) => boundFiles(service));
    expect(bound.length).toBeGreaterThan(8);
    for (const file of bound)
      expect({ file, exists: fs.existsSync(path.join(root, file)) }).toEqual({ file, exists: true });
  });

  it("is valid by the Compose Specification's JSON schema", () => {
    const schemaFile = path.join(__dirname, 'compose-spec', 'compose-spec.json');
    // The vendored copy is the one its README names (check-jsonschema's, by checksum).
    const digest = createHash('sha256').update(fs.readFileSync(schemaFile)).digest('hex');
    expect(fs.readFileSync(path.join(__dirname, 'compose-spec', 'README.md'), 'utf8')).toContain(digest);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaFile, 'utf8')));
    // Compose resolves YAML merge keys (<<: *app) before it validates; so does `parse(…, { merge: true })`.
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
    // The schema can fail: a misspelt key is refused.
    const broken = structuredClone(compose) as unknown as { services: Record<string, Record<string, unknown>> };
    broken.services.api.restart_policy = 'always';
    expect(validate(broken)).toBe(false);
  });

  it('the API trusts the forwarded address of the proxy alone, which has a fixed address on its own network', () => {
    const api = compose.services.api;
    const proxy = compose.services.proxy;
    const fallback = (value: string) => /^\$\{\w+:-([^}]+)\}$/.exec(value)?.[1] ?? value;
    const proxyNetworks = proxy.networks as Record<string, { ipv4_address: string }>;
    expect(Object.keys(proxyNetworks)).toEqual(['edge']);
    expect(api.environment!.TRUST_PROXY).toBe(proxyNetworks.edge.ipv4_address);
    expect(api.networks).toContain('edge');
    // Nothing but the proxy and the API replicas is on that network.
    const onEdge = services
      .filter(([, s]) => (Array.isArray(s.networks) ? s.networks : Object.keys(s.networks ?? {})).includes('edge'))
      .map(([name]) => name);
    expect(onEdge.sort()).toEqual(['api', 'proxy']);
    const subnet = fallback(compose.networks.edge!.ipam!.config[0].subnet);
    const address = fallback(proxyNetworks.edge.ipv4_address);
    expect(subnet).toBe('172.30.80.0/24');
    expect(address.startsWith('172.30.80.')).toBe(true);
  });

  it("the Temporal UI is published on loopback only; Caddy's health checks are ones it runs on dynamic upstreams", () => {
    expect(compose.services['temporal-ui'].ports).toEqual(['127.0.0.1:8233:8080']);
    for (const [name, service] of services) {
      for (const port of service.ports ?? []) {
        // Only the proxy listens on every interface; anything else is loopback.
        if (name !== 'proxy') expect({ name, port }).toEqual({ name, port: expect.stringMatching(/^127\.0\.0\.1:/) });
      }
    }
    const caddyfile = read('deploy/Caddyfile')
      .split('\n')
      .map((line) => line.split('#')[0])
      .join('\n');
    expect(caddyfile).toMatch(/\bdynamic a\b/);
    // Caddy runs no active health check on dynamic upstreams: none may be configured as if it did.
    expect(caddyfile).not.toMatch(/\bhealth_(uri|port|interval)\b/);
    expect(caddyfile).toMatch(/\bfail_duration \d+s\b/);
    expect(caddyfile).toMatch(/\blb_try_duration \d+s\b/);
  });

  it('Redis is bounded in memory and never evicts: past its bound it refuses writes instead of dropping keys', () => {
    const command = compose.services.redis.command ?? [];
    const option = (name: string) => {
      const at = command.indexOf(`--${name}`);
      return at < 0 ? undefined : command[at + 1];
    };
    // Every key the service keeps with a lifetime is one it must not lose early (locks, leases, rate-limit
    // windows, spend, idempotency answers), and the drained streams have none: no eviction policy fits.
    expect(option('maxmemory-policy')).toBe('noeviction');
    const bound = /^\$\{REDIS_MAXMEMORY:-(\d+)(mb|gb)\}$/.exec(option('maxmemory') ?? '');
    expect(bound).not.toBeNull();
    expect(Number(bound![1]) * (bound![2] === 'gb' ? 1024 : 1)).toBeGreaterThanOrEqual(256);
    expect(option('appendonly')).toBe('yes');
    expect(read('.env.example')).toContain(`# REDIS_MAXMEMORY=${bound![1]}${bound![2]}`);
    // The operations guide says why, and what a full Redis does.
    const guide = read('docs/operations.md').replace(/\s+/g, ' ');
    expect(guide).toContain('`maxmemory-policy noeviction`');
  });

  it('one-shot jobs fail loudly and are retried; the S3 health check asks the S3 gateway', () => {
    const jobs = new Set(
      services.flatMap(([, s]) =>
        Object.entries(s.depends_on ?? {})
          .filter(([, d]) => d.condition === 'service_completed_successfully')
          .map(([name]) => name),
      ),
    );
    expect([...jobs].sort()).toEqual(['meili-key', 's3-bucket', 'secrets', 'temporal-namespace', 'temporal-schema']);
    for (const name of jobs) {
      const job = compose.services[name];
      expect({ name, restart: job.restart }).toEqual({ name, restart: expect.stringMatching(/^on-failure:\d+$/) });
      const script = [...(job.entrypoint ?? []), ...(job.command ?? [])].join(' ');
      const mounted = boundFiles(job).filter((f) => /\.(?:sh|mjs)$/.test(f));
      const text = [script, ...mounted.map((f) => read(f))].join('\n');
      expect({ name, swallowsFailures: /\|\|\s*true\b|catch\s*\{\s*\}/.test(text) }).toEqual({
        name,
        swallowsFailures: false,
      });
      for (const f of mounted.filter((m) => m.endsWith('.sh'))) expect(read(f)).toMatch(/^set -eu/m);
    }
    expect(compose.services['s3-bucket'].environment).toMatchObject({ AWS_RETRY_MODE: 'standard' });
    expect(compose.services.s3.healthcheck!.test.join(' ')).toContain('http://127.0.0.1:8333/healthz');
    expect(compose.services.s3.command!.join(' ')).toContain('-s3.port=8333');
  });

  it('checks the health of every long-running service, and starts each after what it needs is healthy or done', () => {
    const longRunning = services.filter(([, s]) => !isJob(s));
    expect(longRunning.map(([name]) => name)).toEqual(
      expect.arrayContaining(['temporal-ui', 'proxy', 'api', 'worker', 'prometheus', 'grafana']),
    );
    for (const [name, service] of longRunning) {
      expect({ name, restart: service.restart }).toEqual({ name, restart: 'unless-stopped' });
      expect({ name, healthcheck: (service.healthcheck?.test ?? []).length > 1 }).toEqual({ name, healthcheck: true });
    }
    for (const [name, service] of services) {
      for (const [needed, { condition }] of Object.entries(service.depends_on ?? {})) {
        const expected = isJob(compose.services[needed]) ? 'service_completed_successfully' : 'service_healthy';
        expect({ name, needed, condition }).toEqual({ name, needed, condition: expected });
      }
    }
  });

  it("the README's compose and Production sections say what the file does", () => {
    const readme = read('README.md');
    const section = (title: string) => readme.split(`\n## ${title}\n`)[1].split('\n## ')[0];
    // Wrapped lines read as one: a statement may break anywhere.
    const text = `${section('Running with docker compose')}\n${section('Production')}`.replace(/\s+/g, ' ');
    // Every published port, as published.
    const published = services.flatMap(([, s]) => s.ports ?? []);
    expect(published.sort()).toEqual([
      '127.0.0.1:3000:3000',
      '127.0.0.1:8233:8080',
      '127.0.0.1:9090:9090',
      '8080:8080',
    ]);
    for (const port of published) expect(text).toContain(port.split(':').slice(0, -1).join(':'));
    // The one command is the only step: the first command shown is it, and nothing asks for a .env first.
    const commands = section('Running with docker compose')
      .split('```sh\n')[1]
      .split('```')[0]
      .split('\n')
      .map((line) => line.split('#')[0].trim())
      .filter(Boolean);
    expect(commands[0]).toBe('docker compose up -d');
    expect(text).not.toMatch(/cp \.env\.example|openssl rand/);
    expect(text).toContain('--profile observability');
    expect(text).toContain('port 8080');
    // The jobs' restart policy, the API's trust of the proxy, the workers' grace and the API's worker switch.
    expect(text).toContain(`restart: ${compose.services['s3-bucket'].restart}`);
    expect(text).toContain('`REDIS_MAXMEMORY`');
    expect(text).toContain('`maxmemory-policy noeviction`');
    expect(text).toContain('`PROXY_ADDRESS`');
    expect(text).toContain(`RUN_WORKER=${compose.services.api.environment!.RUN_WORKER}`);
    expect(text).toContain(`gets ${seconds(compose.services.worker.stop_grace_period!)} s to stop`);
    for (const name of ['api', 'worker']) expect(text).toContain(`\`${compose.services[name].command!.join(' ')}`);
  });

  it('the image runs the Node LTS of the engines floor, keeps .env out and bundles the workflows at build time', () => {
    const dockerfile = read('Dockerfile');
    // Both stages on one exact release (no floating `node:24`), pinned by digest; its major is the engines floor.
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(bases.length).toBe(2);
    expect(new Set(bases).size).toBe(1);
    const base = /^node:(\d+)\.\d+\.\d+-bookworm-slim@sha256:[0-9a-f]{64}$/.exec(bases[0]);
    expect(base).not.toBeNull();
    const floor = /^>=(\d+)$/.exec(JSON.parse(read('package.json')).engines.node)?.[1];
    expect(base![1]).toBe(floor);
    expect(Number(floor) % 2).toBe(0); // an even major: an LTS line
    // npm ci finds the pinned-Node development dependency (a file: link) in place.
    expect(dockerfile.indexOf('COPY tools/node-runtime/package.json')).toBeGreaterThan(-1);
    expect(dockerfile.indexOf('COPY tools/node-runtime/package.json')).toBeLessThan(dockerfile.indexOf('RUN npm ci'));
    expect(dockerfile).toContain('bundle-cli.js');
    expect(dockerfile).toContain('WORKFLOW_BUNDLE_PATH=');
    expect(read('.dockerignore').split('\n')).toEqual(expect.arrayContaining(['.env', '.env.*']));
  });

  it('the image ships the console prebuilt, where the API serves it from', () => {
    const dockerfile = read('Dockerfile');
    const [build, final] = dockerfile.split(/^FROM /m).slice(1);
    // The console is a workspace: its package.json is in place before npm ci installs the workspaces' dependencies.
    const install = build.indexOf('RUN npm ci');
    expect(build.indexOf('COPY console/package.json ./console/package.json')).toBeGreaterThan(-1);
    expect(build.indexOf('COPY console/package.json ./console/package.json')).toBeLessThan(install);
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    expect(scripts['console:build']).toContain('scripts/console-build.ts --force');
    // Built after the sources are copied, before the development dependencies (Vite) are pruned.
    const built = build.indexOf('npm run console:build');
    expect(built).toBeGreaterThan(build.indexOf('COPY . .'));
    expect(built).toBeLessThan(build.indexOf('npm prune --omit=dev'));
    // Copied to the final stage beside openapi.yaml (WORKDIR /app), where serve-console.ts's CONSOLE_DIST is.
    expect(final).toMatch(/^WORKDIR \/app$/m);
    expect(final).toContain('COPY --from=build /app/console/dist ./console/dist');
    expect(final).toMatch(/COPY --from=build \/app\/package.json \/app\/openapi.yaml \.\//);
    expect(read('src/console/serve-console.ts')).toContain(
      "export const CONSOLE_DIST = path.join(path.dirname(OPENAPI_PATH), 'console', 'dist');",
    );
    // A local build or install never reaches the image's context.
    expect(read('.dockerignore').split('\n')).toEqual(expect.arrayContaining(['console/dist', 'console/node_modules']));
  });
});
