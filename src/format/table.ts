/** Text columns for people: each cell padded to its column's widest, two spaces between. */
export function columns(rows: readonly (readonly string[])[], align: readonly ('l' | 'r')[] = []): string[] {
  const count = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: count }, (_, c) => Math.max(0, ...rows.map((r) => [...(r[c] ?? '')].length)));
  return rows.map((r) => widths.map((w, c) => {
    const cell = r[c] ?? '';
    const pad = ' '.repeat(Math.max(0, w - [...cell].length));
    return align[c] === 'r' ? pad + cell : cell + pad;
  }).join('  ').trimEnd());
}
