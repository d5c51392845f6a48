/**
 * When a host is read next. A host that answers is read every `baseMs`, but never sooner
 * after a call than the call took (a slow host is not asked back to back); one that fails is
 * asked again later and later (twice the wait after each failure in a row), up to `maxMs`.
 */
export function nextPollDelay(p: { baseMs: number; failures: number; lastCallMs: number; maxMs?: number }): number {
  const max = p.maxMs ?? maxPollDelay(p.baseMs);
  if (p.failures <= 0) return Math.min(max, Math.max(p.baseMs, p.lastCallMs));
  return Math.min(max, p.baseMs * 2 ** Math.min(p.failures, 16));
}

/** The longest wait between two looks at a host that fails: a minute, or 30 looks for a fast base (tests). */
export function maxPollDelay(baseMs: number): number {
  return Math.min(60_000, baseMs * 30);
}
