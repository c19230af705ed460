import type { NextFunction, Request, Response } from 'express';
import { declaredOperations, type OpenApiDocument } from './openapi-spec';

interface ParameterObject {
  name?: string;
  in?: string;
  'x-multi-segment'?: boolean;
}

/**
 * Path parameters the contract marks `x-multi-segment: true` (the maps relay's provider sub-path,
 * `geocode/json`) may span several segments. OpenAPI has no such template, so a request's remaining
 * segments are folded into one encoded segment before routing and validation; Express hands the
 * handler the decoded value (`geocode/json`), and `%2F` sent by a client arrives the same way.
 */
export function multiSegmentPaths(doc: OpenApiDocument) {
  const prefixes: string[] = [];
  for (const { path, operation } of declaredOperations(doc)) {
    const params = (operation.parameters ?? []) as ParameterObject[];
    const last = /\/\{([^}]+)\}$/.exec(path);
    if (last && params.some((p) => p.in === 'path' && p.name === last[1] && p['x-multi-segment'])) {
      prefixes.push(path.slice(0, last.index + 1));
    }
  }
  return (req: Request, _res: Response, next: NextFunction) => {
    const [pathname, query] = splitUrl(req.url);
    const prefix = prefixes.find((p) => pathname.startsWith(p) && pathname.length > p.length);
    if (prefix) {
      const rest = pathname.slice(prefix.length);
      if (rest.includes('/')) req.url = prefix + rest.split('/').join('%2F') + query;
    }
    next();
  };
}

function splitUrl(url: string): [string, string] {
  const q = url.indexOf('?');
  return q < 0 ? [url, ''] : [url.slice(0, q), url.slice(q)];
}

/** `%XX` decoded byte by byte (never throws on a malformed sequence); enough for the ASCII `.`, `/` and `\`. */
const decodePercent = (text: string) =>
  text.replace(/%([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/**
 * Whether `path` has a `.` or `..` segment, sent as is or percent-encoded (`%2e%2E`, `.%2e`, also encoded twice or
 * three times) or separated by `\`. A URL parser resolves such segments (WHATWG URL reads `%2e` as `.` and `\` as
 * `/`), so a multi-segment parameter or a relayed path that holds one would reach another endpoint than it names:
 * the callers refuse it (422) before anything is forwarded.
 */
export function hasDotSegment(path: string): boolean {
  let decoded = path;
  for (let round = 0; round < 3; round++) {
    const next = decodePercent(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  return decoded.split(/[/\\]/).some((segment) => segment === '.' || segment === '..');
}
