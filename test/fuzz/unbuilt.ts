import fs from 'node:fs';
import path from 'node:path';
import { declaredOperations, loadOpenApi } from '../../src/lib/http/openapi-spec';

/**
 * The operations not built yet (test/fuzz/unbuilt-operations.txt): the one finding the fuzzer tolerates is their 501
 * (config.ts).
 */
export function unbuiltOperations(): string[] {
  return fs
    .readFileSync(path.join(__dirname, 'unbuilt-operations.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

/** The optional headers that say which brand and country an agent call is for. */
const AGENT_CONTEXT_HEADERS = ['#/components/parameters/BrandHeader', '#/components/parameters/RelayCountryHeader'];

/** Operations that declare one of them (the pin operations and the relays). */
export function agentContextOperations(): string[] {
  return declaredOperations(loadOpenApi().doc)
    .filter(({ operation }) =>
      ((operation.parameters as { $ref?: string }[] | undefined) ?? []).some((p) =>
        AGENT_CONTEXT_HEADERS.includes(p.$ref ?? ''),
      ),
    )
    .map(({ operation }) => operation.operationId);
}

/**
 * Operations whose path has a seeded string id beside an integer id the fuzzer draws (an agent user under
 * /brands/{brand_id}): schemathesis 4.32 judges its coverage phase's wrong-type case of the seeded id, which the
 * seed then replaces, by validating the path values as text, where the integer fails its schema, so it reports a
 * request that was valid as "schema-violating request accepted". The examples and fuzzing phases still run.
 */
export function seededBesideIntegerOperations(seeded: string[]): string[] {
  type Parameter = { $ref?: string; name?: string; in?: string; schema?: { type?: string } };
  const { doc } = loadOpenApi();
  const declared = (doc.components as { parameters: Record<string, Parameter> }).parameters;
  const resolved = (p: Parameter) => (p.$ref ? declared[p.$ref.split('/').pop()!] : p);
  return declaredOperations(doc)
    .filter(({ operation }) => {
      const path = ((operation.parameters as Parameter[] | undefined) ?? [])
        .map(resolved)
        .filter((p) => p.in === 'path');
      return (
        path.some((p) => seeded.includes(`path.${p.name}`)) &&
        path.some((p) => p.schema?.type === 'integer' && !seeded.includes(`path.${p.name}`))
      );
    })
    .map(({ operation }) => operation.operationId);
}
