import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';

/**
 * `text` in exactly `width` columns: cut with an ellipsis to leave a one-column gap,
 * then padded. A table row is one line of text this way, laid out once, instead of a
 * box per cell for Ink to measure on every frame.
 */
export function cell(text: string, width: number): string {
  if (width <= 0) return '';
  const room = width - 1;
  const cut = stringWidth(text) > room ? cliTruncate(text, room, { position: 'end' }) : text;
  return cut + ' '.repeat(Math.max(0, width - stringWidth(cut)));
}
