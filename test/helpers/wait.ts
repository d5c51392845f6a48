/**
 * Polls until `predicate` returns a truthy value; fails after a generous bound. Tests
 * wait for states, never for fixed times: the machines here are shared and noisy.
 */
export async function waitFor<T>(predicate: () => T | Promise<T>, what: string, timeoutMs = 30_000, everyMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await predicate();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
