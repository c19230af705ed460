/** Polls until `probe` returns a value (not undefined) or the time runs out; `what` names it in the error. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  intervalMs = 200,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`${what} not met within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
}
