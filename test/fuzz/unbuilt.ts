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
