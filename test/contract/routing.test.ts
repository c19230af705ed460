import fs from 'node:fs';
import path from 'node:path';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { declaredOperations, loadOpenApi } from '../../src/lib/http/openapi-spec';
import { routeOperations } from '../../src/lib/http/operations';
import { useTestApi } from '../support/harness';
import { compileServiceContract, operationHandlers } from '../../src/app';
import { unbuiltOperations } from '../fuzz/unbuilt';

const { doc } = loadOpenApi();
const operations = declaredOperations(doc);
const concrete = (p: string) =>
  p.replace(/\{([^{}]+)\}/g, (_m, name: string) => (/brand_id|integration_id/.test(name) ? '1' : 'x-' + name));

describe('the contract', () => {
  it('declares every operation of the interface (spec/interface-operations.tsv, kept with the product)', () => {
    const shape = (method: string, p: string) => `${method.toUpperCase()} ${p.replace(/\{[^{}]+\}/g, '{}')}`;
    const interfaceOps = fs
      .readFileSync(path.resolve(__dirname, '../../spec/interface-operations.tsv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split('\t'))
      .map(([method, p]) => shape(method, p));
    const declared = new Set(operations.map((o) => shape(o.method, o.path)));
    expect(interfaceOps).toHaveLength(97);
    expect(interfaceOps.filter((op) => !declared.has(op))).toEqual([]);
  });

  it('gives every operation a unique operationId', () => {
    const ids = operations.map((o) => o.operation.operationId);
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('looks every declared operation up as itself, literal segments before parameters, in any letter case', async () => {
    const contract = await compileServiceContract({ VALIDATE_RESPONSES: false });
    for (const op of operations) {
      const method = op.method.toUpperCase();
      for (const path of [concrete(op.path), `${concrete(op.path)}/`, concrete(op.path).toUpperCase()]) {
        const route = contract.lookup(method, path);
        expect({ path, found: route.found?.schema.operationId }).toEqual({ path, found: op.operation.operationId });
      }
    }
    expect(contract.lookup('GET', '/api/v1/no-such-thing')).toEqual({ found: null, methodNotAllowed: false });
    expect(contract.lookup('PUT', '/api/v1/auth/login')).toEqual({ found: null, methodNotAllowed: true });
    expect(contract.lookup('GET', '/api/v1/dashboard/client/jobs//status').found).toBeNull(); // a parameter is never empty
  });

  it('routes every declared operation; unbuilt ones answer 501, never a fake success', async () => {
    const contract = await compileServiceContract({ VALIDATE_RESPONSES: false });
    const app = express();
    // Routing alone: without gates or validation every operation reaches its (absent) handler.
    app.use(routeOperations({ ...contract, validateRequest: (_req, _res, next) => next() }, {}, () => []));
    app.use(
      (
        err: { status: number; detail: string },
        _req: express.Request,
        res: express.Response,
        _next: express.NextFunction,
      ) => void res.status(err.status).json({ detail: err.detail }),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const op of operations) {
        const res = await fetch(base + concrete(op.path), { method: op.method.toUpperCase() });
        expect({ op: `${op.method} ${op.path}`, status: res.status }).toEqual({
          op: `${op.method} ${op.path}`,
          status: 501,
        });
      }
    } finally {
      server.close();
    }
  });
});

describe('the running API', () => {
  const ctx = useTestApi();

  it("lists exactly the operations without a handler as unbuilt (the fuzzer's only tolerance)", () => {
    // The handlers of the process's own services: an area module's handlers exist only once it is built.
    const built = new Set(Object.keys(operationHandlers(ctx.api.rt.modules)));
    const withoutHandler = operations
      .map((o) => o.operation.operationId)
      .filter((id) => !built.has(id))
      .sort();
    expect(unbuiltOperations().sort()).toEqual(withoutHandler);
  });

  it('knows every declared operation (no route-not-found for any of them)', async () => {
    for (const op of operations) {
      if (op.path === '/api/v1/events/stream') continue; // a stream: covered by the events tests
      const res = await ctx.api.call(op.method.toUpperCase(), concrete(op.path), { token: ctx.admin });
      expect({ op: `${op.method} ${op.path}`, detail: res.body?.detail }).not.toEqual({
        op: `${op.method} ${op.path}`,
        detail: 'No such route',
      });
    }
  });
});
