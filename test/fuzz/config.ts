/** A TOML string (JSON's escapes are TOML's for the names and ids written here). */
const str = (s: string) => JSON.stringify(s);

/**
 * The schemathesis configuration (TOML) of one fuzzer run:
 * - `parameters`: path ids of seeded records (and headers) used where an operation declares them;
 * - invalid data may also be refused with 413: a body over the operation's size limit is refused before it is
 *   read (schemathesis generates multi-megabyte strings for maxLength violations);
 * - the operations not built yet may answer 501, where any other operation's 5xx is a server error.
 */
const NEGATIVE_DATA_REJECTED = ['400', '401', '403', '404', '405', '406', '409', '413', '415', '422', '428', '429', '5xx'];

export function fuzzConfig(opts: { parameters: Record<string, string>; unbuilt: string[] }): string {
  const lines = [
    `checks.negative_data_rejection.expected-statuses = [${NEGATIVE_DATA_REJECTED.map(str).join(', ')}]`, '',
    '[parameters]', ...Object.entries(opts.parameters).map(([key, value]) => `${str(key)} = ${str(value)}`), '',
  ];
  if (opts.unbuilt.length) {
    lines.push('[[operations]]', `include-operation-id = [${opts.unbuilt.map(str).join(', ')}]`);
    lines.push('checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "501"]', '');
  }
  return lines.join('\n');
}
