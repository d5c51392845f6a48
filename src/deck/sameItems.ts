/** The same items in the same order, compared with `===` (rows the deck replaces, never changes; lines of text). */
export function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
