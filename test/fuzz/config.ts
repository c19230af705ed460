/** A TOML string (JSON's escapes are TOML's for the names and ids written here). */
const str = (s: string) => JSON.stringify(s);

/**
 * The schemathesis configuration (TOML) of one fuzzer run:
 * - `parameters`: path ids of seeded records (and headers) used where an operation declares them;
 * - invalid data may also be refused with 413: a body over the operation's size limit is refused before it is
 *   read (schemathesis generates multi-megabyte strings for maxLength violations);
 * - the operations not built yet may answer 501, where any other operation's 5xx is a server error;
 * - operations with optional agent-context headers (X-Brand-Id, X-Country-Code) skip the coverage phase (the
 *   examples and fuzzing phases still run, positive and negative): its "unexpected header" case adds an
 *   undeclared header and expects a refusal, but HTTP servers accept headers they do not know (proxies add
 *   them), and schemathesis 4.32 applies neither `allow-extra-parameters = false` nor a fixed header there;
 * - confirm-pin may answer 503 `channel_not_available`: the interface's answer for a channel name that is
 *   well-formed but not verified (the only operation whose contract makes a 503 the answer to input);
 * - the event stream is read until `streamFramesRead` frames have come: it never ends by itself;
 * - operations with a seeded string id beside an integer one the fuzzer draws skip the coverage phase too
 *   (`seededBesideInteger`: schemathesis misjudges its wrong-type case of the seeded id; unbuilt.ts says how).
 */
const NEGATIVE_DATA_REJECTED = [
  '400',
  '401',
  '403',
  '404',
  '405',
  '406',
  '409',
  '413',
  '415',
  '422',
  '428',
  '429',
  '5xx',
];

export function fuzzConfig(opts: {
  parameters: Record<string, string>;
  unbuilt: string[];
  headerContext: string[];
  seededBesideInteger: string[];
  streamFramesRead: number;
}): string {
  const lines = [
    `checks.negative_data_rejection.expected-statuses = [${NEGATIVE_DATA_REJECTED.map(str).join(', ')}]`,
    '',
    '[parameters]',
    ...Object.entries(opts.parameters).map(([key, value]) => `${str(key)} = ${str(value)}`),
    '',
  ];
  // One [[operations]] entry per operation that needs any of these, so no two entries match one operation.
  const tolerated = new Map<string, string[]>();
  const add = (ids: string[], line: string) =>
    ids.forEach((id) => tolerated.set(id, [...(tolerated.get(id) ?? []), line]));
  add([...new Set([...opts.headerContext, ...opts.seededBesideInteger])], 'phases.coverage.enabled = false');
  add(['confirmPin'], 'checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "503"]');
  add(opts.unbuilt, 'checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "501"]');
  add(['streamEvents'], `max-stream-events = ${opts.streamFramesRead}`);
  for (const [id, settings] of tolerated)
    lines.push('[[operations]]', `include-operation-id = [${str(id)}]`, ...settings, '');
  return lines.join('\n');
}
