import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

/** openapi.yaml at the project root, found from here both in src/ (tsx, Jest) and in dist/ (built). */
export const OPENAPI_PATH = findUp('openapi.yaml', __dirname);

function findUp(file: string, from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, file))) return path.join(dir, file);
    if (path.dirname(dir) === dir) return path.resolve(file);
  }
}

export interface OperationObject {
  operationId: string;
  security?: Record<string, string[]>[];
  'x-roles'?: string[];
  'x-scopes'?: string[];
  'x-validation-status'?: number;
  [key: string]: unknown;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject | unknown>>;
  [key: string]: unknown;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

let cached: { text: string; doc: OpenApiDocument } | undefined;

/** openapi.yaml, read once: the single source of truth for routes, validation, roles and scopes. */
export function loadOpenApi(): { text: string; doc: OpenApiDocument } {
  if (!cached) {
    const text = fs.readFileSync(OPENAPI_PATH, 'utf8');
    cached = { text, doc: YAML.parse(text) as OpenApiDocument };
  }
  return cached;
}

export interface DeclaredOperation {
  method: (typeof HTTP_METHODS)[number];
  path: string;
  expressPath: string;
  operation: OperationObject;
}

export function declaredOperations(doc: OpenApiDocument): DeclaredOperation[] {
  const ops: DeclaredOperation[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as OperationObject | undefined;
      if (operation) ops.push({ method, path: p, expressPath: p.replace(/\{([^{}]+)\}/g, ':$1'), operation });
    }
  }
  // Literal segments before parameters, so /idap/media/{id} and /idap/{type}/search resolve predictably.
  const rank = (p: string) =>
    p
      .split('/')
      .map((s) => (s.startsWith('{') ? '1' : '0'))
      .join('');
  return ops.sort((a, b) => rank(a.path).localeCompare(rank(b.path)));
}
