import Anser from 'anser';
import stringWidth from 'string-width';

/**
 * A terminal screen (`tmux capture-pane -e -p`: text with SGR colour codes) as an SVG
 * picture. anser parses the escape codes (colours, bold, dim, inverse already applied);
 * here each run of text is only placed on its cell grid, so the columns stay in line
 * whatever font the viewer has.
 */
export interface SvgOptions {
  cols: number;
  rows: number;
  /** Shown by viewers (the SVG's <title>). */
  title: string;
}

const CELL_W = 8.4;
const CELL_H = 18;
const FONT_SIZE = 14;
const PAD = 12;
const BACKGROUND = '#1e1e1e';
const FOREGROUND = '#d4d4d4';

const ENTITIES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' };
const escapeXml = (s: string): string => s.replace(/[<>&"']/g, (c) => ENTITIES[c]!);
const rgb = (anser: string | null): string | undefined => (anser ? `rgb(${anser.replace(/\s/g, '')})` : undefined);

/** Keeps only what a screen capture has: SGR codes (anser would show anything else as text). */
function sgrOnly(line: string): string {
  return line.replace(/\x1b\[[0-9;:?]*[A-Za-z]/g, (seq) => (seq.endsWith('m') ? seq : '')).replace(/[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]/g, '');
}

export function ansiToSvg(ansi: string, opts: SvgOptions): string {
  const lines = ansi.replace(/\n$/, '').split('\n').slice(0, opts.rows);
  const width = Math.ceil(opts.cols * CELL_W + 2 * PAD);
  const height = Math.ceil(opts.rows * CELL_H + 2 * PAD);
  const rects: string[] = [];
  const texts: string[] = [];
  // SGR state carries over line ends in a capture: parse the screen as one text, split after.
  const parts = Anser.ansiToJson(sgrOnly(lines.join('\n')), { json: true, remove_empty: true });
  let row = 0;
  let col = 0;
  for (const p of parts) {
    const chunks = p.content.split('\n');
    chunks.forEach((chunk, i) => {
      if (i > 0) {
        row++;
        col = 0;
      }
      if (chunk === '') return;
      const w = stringWidth(chunk);
      const x = PAD + col * CELL_W;
      const y = PAD + row * CELL_H;
      const bg = rgb(p.bg);
      if (bg) rects.push(`<rect x="${x.toFixed(1)}" y="${y}" width="${(w * CELL_W).toFixed(1)}" height="${CELL_H}" fill="${bg}"/>`);
      if (chunk.trim() !== '') {
        const attrs = [`x="${x.toFixed(1)}"`, `y="${y + CELL_H - 5}"`, `textLength="${(w * CELL_W).toFixed(1)}"`, 'lengthAdjust="spacingAndGlyphs"'];
        const fg = rgb(p.fg);
        if (fg) attrs.push(`fill="${fg}"`);
        if (p.decorations.includes('bold')) attrs.push('font-weight="bold"');
        if (p.decorations.includes('dim')) attrs.push('opacity="0.6"');
        if (p.decorations.includes('underline')) attrs.push('text-decoration="underline"');
        texts.push(`<text ${attrs.join(' ')}>${escapeXml(chunk)}</text>`);
      }
      col += w;
    });
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img">`,
    `<title>${escapeXml(opts.title)}</title>`,
    `<rect width="100%" height="100%" rx="6" fill="${BACKGROUND}"/>`,
    ...rects,
    `<g font-family="'DejaVu Sans Mono', Menlo, Consolas, monospace" font-size="${FONT_SIZE}" fill="${FOREGROUND}" xml:space="preserve">`,
    ...texts,
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}
