import { closestMatch } from 'leven';

/**
 * The word a person most likely meant: the same word in another case, a unique prefix
 * (`--max-iter`), else the nearest by edit distance within a tolerance that grows with the
 * word (a slip of one or two letters, not another word). Undefined: nothing close.
 */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  const byLower = new Map(candidates.map((c) => [c.toLowerCase(), c]));
  const same = byLower.get(lower);
  if (same !== undefined) return same;
  const core = lower.replace(/^-+/, '');
  if (core.length >= 3) {
    const prefixed = [...byLower.keys()].filter((c) => c.startsWith(lower));
    if (prefixed.length === 1) return byLower.get(prefixed[0]!);
  }
  const maxDistance = core.length <= 3 ? 1 : core.length <= 8 ? 2 : 3;
  const near = closestMatch(lower, [...byLower.keys()], { maxDistance });
  return near === undefined ? undefined : byLower.get(near);
}
