/** Summary figures of a set of samples; pure, no I/O. */

export interface Summary {
  count: number;
  median: number;
  p95: number;
  max: number;
  /** How many samples are above `slowMs` (100 ms unless told). */
  slow: number;
}

/** The p-th percentile (0–100) by nearest rank: a value that was actually observed. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of no samples');
  if (p < 0 || p > 100) throw new Error(`percentile ${p} is outside 0..100`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** The middle value; the mean of the two middle ones for an even count. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no samples');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(values: readonly number[], slowMs = 100): Summary {
  return {
    count: values.length, median: median(values), p95: percentile(values, 95), max: Math.max(...values),
    slow: values.filter((v) => v > slowMs).length,
  };
}
