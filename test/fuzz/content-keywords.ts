/** The contract's names for JSON Schema's string-content keywords, and the keywords themselves. */
const CONTENT_KEYWORDS: Record<string, string> = {
  'x-content-media-type': 'contentMediaType',
  'x-content-schema': 'contentSchema',
};

/**
 * The contract with `x-content-media-type` and `x-content-schema` spelled as JSON Schema's `contentMediaType` and
 * `contentSchema`. OpenAPI 3.0 admits neither keyword, so openapi.yaml carries them as extensions (the event
 * stream's frames, whose `data` is JSON text); schemathesis validates such a string's JSON against `contentSchema`
 * under their own names, so the fuzzer is given this copy.
 */
export function withContentKeywords(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withContentKeywords);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [CONTENT_KEYWORDS[key] ?? key, withContentKeywords(value)]),
  );
}
