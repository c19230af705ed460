/** A TOML string (JSON's escapes are TOML's for the names and ids written here). */
const str = (s: string) => JSON.stringify(s);

/**
 * The schemathesis configuration (TOML) of one fuzzer run:
 * - `parameters`: path ids of seeded records (and headers) used where an operation declares them;
 * - the operations not built yet may answer 501, where any other operation's 5xx is a server error:
 *   the only tolerance, nothing else is relaxed.
 */
export function fuzzConfig(opts: { parameters: Record<string, string>; unbuilt: string[] }): string {
  const lines = ['[parameters]', ...Object.entries(opts.parameters).map(([key, value]) => `${str(key)} = ${str(value)}`), ''];
  if (opts.unbuilt.length) {
    lines.push('[[operations]]', `include-operation-id = [${opts.unbuilt.map(str).join(', ')}]`);
    lines.push('checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "501"]', '');
  }
  return lines.join('\n');
}
