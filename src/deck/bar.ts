/**
 * A progress bar of `cells` columns in block glyphs, eighths for the edge: `███▍░░`.
 * The empty part is drawn (`░`), so the bar's length reads without colour (NO_COLOR).
 */
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

export function bar(fraction: number, cells: number): string {
  if (cells <= 0) return '';
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  const eighths = Math.round(f * cells * 8);
  const full = Math.floor(eighths / 8);
  const part = EIGHTHS[eighths % 8]!;
  return '█'.repeat(full) + part + '░'.repeat(cells - full - (part ? 1 : 0));
}
