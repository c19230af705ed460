import type { Attributes, AttributeValue, Link } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { Resource, type IResource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace-base';

/**
 * What leaves the process in a trace, with the secrets taken out. Credentials travel in query strings (the event
 * stream's `?token=`, signup, approval, poll and reset tokens, the maps platform's `key`), and the HTTP and fetch
 * instrumentations record whole URLs and targets (`url.full`, `url.query`, `http.target`, `http.url`) on server and
 * client spans alike; an error message or a workflow's span can quote one too. So every string of every exported
 * span (its name, attributes, events, links, status and resource) has the value of each query parameter replaced,
 * keeping the path and the parameter names, and no credential-bearing header is ever exported as an attribute.
 * Log redaction (src/lib/http/request-observer.ts) does not reach spans; this does, at the one place all of them
 * pass.
 */

/** What stands for a query value (the OpenTelemetry semantic conventions' own word for a redacted URL part). */
export const REDACTED = 'REDACTED';

/** Where a query written inside other text ends (a URL is quoted, bracketed or followed by white space). */
const QUERY_END = new Set([' ', '\t', '\n', '\r', '"', "'", '`', '<', '>']);

/** `name=value&flag` with every value replaced: `name=REDACTED&flag`. */
export function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 || eq === pair.length - 1 ? pair : `${pair.slice(0, eq + 1)}${REDACTED}`;
    })
    .join('&');
}

/** `text` with the values of every query string in it (from each `?` to the next white space or quote) replaced. */
export function redactQueries(text: string): string {
  let at = text.indexOf('?');
  if (at < 0 || !text.includes('=', at)) return text;
  let out = '';
  let from = 0;
  while (at >= 0) {
    let end = at + 1;
    while (end < text.length && !QUERY_END.has(text[end])) end++;
    out += `${text.slice(from, at + 1)}${redactQuery(text.slice(at + 1, end))}`;
    from = end;
    at = text.indexOf('?', end);
  }
  return out + text.slice(from);
}

/** The words that make a header credential-bearing (Authorization, Cookie, X-Api-Key, tracking-api-key...). */
const CREDENTIAL_HEADER_WORDS = ['auth', 'cookie', 'key', 'token', 'secret', 'signature', 'session', 'password'];
const HEADER_ATTRIBUTE_PREFIXES = ['http.request.header.', 'http.response.header.'];

/** Whether an attribute records a header that carries a credential (never exported, whatever its value). */
export function isCredentialHeaderAttribute(key: string): boolean {
  const prefix = HEADER_ATTRIBUTE_PREFIXES.find((p) => key.startsWith(p));
  if (!prefix) return false;
  const header = key.slice(prefix.length).toLowerCase();
  return CREDENTIAL_HEADER_WORDS.some((word) => header.includes(word));
}

function redactString(key: string, s: string): string {
  // url.query holds the query alone, with or without its `?`.
  if (key !== 'url.query') return redactQueries(s);
  return s.startsWith('?') ? `?${redactQuery(s.slice(1))}` : redactQuery(s);
}

/** The value redacted, or the value itself when nothing in it needed to be. */
function redactedValue(key: string, value: AttributeValue): AttributeValue {
  if (typeof value === 'string') return redactString(key, value);
  if (!Array.isArray(value) || !value.some((v) => typeof v === 'string')) return value;
  const redacted = value.map((v) => (typeof v === 'string' ? redactString(key, v) : v));
  return redacted.some((v, i) => v !== value[i]) ? (redacted as AttributeValue) : value;
}

/** The attributes with query values redacted and credential headers left out; the same object when nothing changed. */
export function redactAttributes<T extends Attributes | undefined>(attributes: T): T {
  if (!attributes) return attributes;
  let out: Attributes | undefined;
  for (const [key, value] of Object.entries(attributes)) {
    const drop = isCredentialHeaderAttribute(key);
    const redacted = drop || value === undefined ? value : redactedValue(key, value);
    if (!drop && redacted === value) continue;
    out ??= { ...attributes };
    if (drop) delete out[key];
    else out[key] = redacted;
  }
  return (out ?? attributes) as T;
}

const redactedResources = new WeakMap<IResource, IResource>();
function redactResource(resource: IResource): IResource {
  let redacted = redactedResources.get(resource);
  if (!redacted) {
    const attributes = redactAttributes(resource.attributes as Attributes);
    redacted = attributes === resource.attributes ? resource : new Resource(attributes);
    redactedResources.set(resource, redacted);
  }
  return redacted;
}

/** The span as the exporter must see it: the same span, with its strings redacted (nothing else is copied). */
export function redactSpan(span: ReadableSpan): ReadableSpan {
  const overrides: Partial<ReadableSpan> = {
    name: redactQueries(span.name),
    attributes: redactAttributes(span.attributes),
    events: span.events.map((e): TimedEvent => ({
      ...e,
      name: redactQueries(e.name),
      attributes: redactAttributes(e.attributes),
    })),
    links: span.links.map((l): Link => ({ ...l, attributes: redactAttributes(l.attributes) })),
    status: span.status.message ? { ...span.status, message: redactQueries(span.status.message) } : span.status,
    resource: redactResource(span.resource),
  };
  return new Proxy(span, {
    get(target, prop, receiver) {
      if (prop in overrides) return overrides[prop as keyof ReadableSpan];
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** An exporter that hands `exporter` every span redacted (redactSpan). */
export function redactingExporter(exporter: SpanExporter): SpanExporter {
  return {
    export: (spans: ReadableSpan[], done: (result: ExportResult) => void) =>
      exporter.export(spans.map(redactSpan), done),
    shutdown: () => exporter.shutdown(),
    forceFlush: exporter.forceFlush ? () => exporter.forceFlush!() : undefined,
  };
}
