import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { ansiToSvg } from '../tools/ansiSvg.js';
import { SHOT, SHOT_FIXTURE, SHOT_SVG, worthShowing } from '../tools/screenshot.js';
import { headerOf, headerText } from '../../src/deck/header.js';
import { STATE_GROUPS, STATES, type StateDef } from '../../src/deck/states.js';
import { columnsFor } from '../../src/deck/layout.js';

// The README's picture: a real capture of the demo (`npm run screenshot` writes both), its
// SVG the conversion of that capture, and the capture what this code draws now: the same
// header for the rows it shows, the same columns. Change how the header or the table reads
// and this fails until the picture is made again (`npm run screenshot`).

const REPO = join(import.meta.dirname, '..', '..');
const CAPTURE = readFileSync(join(REPO, SHOT_FIXTURE), 'utf8');
const plain = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');
const LINES = plain(CAPTURE).split('\n');

interface Text { '#text'?: string | number; '@_fill'?: string; '@_x'?: string }

/** The state each table row shows, read back from its STATE cell (glyph and word). */
function statesShown(): StateDef[] {
  const words = [...new Set(STATES.map((s) => s.word))].sort((a, b) => b.length - a.length);
  const glyphs = STATE_GROUPS.map((g) => g.glyph).join('');
  const cell = new RegExp(`\\s([${glyphs.replace(/[\\\]^-]/g, '\\$&')}]) (${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?=\\s)`);
  const rows = LINES.slice(2, LINES.findIndex((l) => l.startsWith('──')));
  return rows.map((l) => {
    const m = cell.exec(l);
    if (!m) throw new Error(`no state in ${JSON.stringify(l)}`);
    const s = STATES.find((x) => x.word === m[2])!;
    expect(STATE_GROUPS.find((g) => g.id === s.group)!.glyph, l).toBe(m[1]);
    return s;
  });
}

describe('the dashboard picture', () => {
  const svg = ansiToSvg(CAPTURE, { ...SHOT, title: 'autodeck <demo> & co' });

  it('is the conversion of the capture beside it (npm run screenshot writes both)', () => {
    expect(readFileSync(join(REPO, SHOT_SVG), 'utf8')).toBe(ansiToSvg(CAPTURE, SHOT));
  });

  it('shows the header this code draws for its rows, counts adding up to them, and every column, spend included', () => {
    const states = statesShown();
    expect(states).toHaveLength(7);
    const host = /· host (\S+) ·/.exec(LINES[0]!)![1]!;
    expect(LINES[0]).toBe(headerText(headerOf('autodeck demo', host, states, false), false));
    const titles = columnsFor('wide', SHOT.cols).map((c) => c.title);
    expect(LINES[1]!.trim().split(/\s+/)).toEqual(titles);
    expect(titles).toContain('TOKENS/$');
    // spend and context figures, not dashes: the simulated agent's transcript is read
    expect(plain(CAPTURE)).toMatch(/\d+(\.\d)?k \$\d+\.\d\d\s+\d+%/);
  });

  it('is well-formed SVG of the terminal\'s size', () => {
    expect(XMLValidator.validate(svg)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false }).parse(svg) as { svg: Record<string, unknown> };
    expect(doc.svg['@_xmlns']).toBe('http://www.w3.org/2000/svg');
    expect(doc.svg['@_viewBox']).toBe(`0 0 ${Math.ceil(SHOT.cols * 8.4 + 24)} ${SHOT.rows * 18 + 24}`);
    expect(doc.svg.title).toBe('autodeck <demo> & co'); // escaped, read back as it was
  });

  it('holds the screen\'s text in its colours, and keeps the columns in line', () => {
    const texts = (new XMLParser({ ignoreAttributes: false }).parse(svg) as { svg: { g: { text: Text[] } } }).svg.g.text;
    const all = texts.map((t) => String(t['#text'] ?? '')).join('\n');
    expect(all).toContain('autodeck demo · host ');
    for (const m of ['add-login-page', 'clean-old-branches', 'translate-docs', 'upgrade-framework']) expect(all).toContain(m);
    expect(texts.find((t) => /▶ \d+ running/.test(String(t['#text'])))?.['@_fill']).toBe('rgb(0,187,187)');
    expect(all).toMatch(/[█▉▊▋▌▍▎▏]+░* \d+\/\d+/);
    // a text starts at the x of its terminal column
    const line = LINES.find((l) => l.includes('upgrade-framework'))!;
    const state = texts.find((t) => String(t['#text']).startsWith('✗ blocked') && Number(t['@_x'] ?? 0) > 100)!;
    expect(Number(state['@_x'])).toBeCloseTo(12 + [...line.slice(0, line.indexOf('✗ blocked'))].length * 8.4, 1);
  });

  it('the script waits for a screen with a quota countdown, loops ended and running, and spend', () => {
    expect(worthShowing(plain(CAPTURE))).toBe(true);
    expect(worthShowing(plain(CAPTURE).replace(/reset in/g, 'waiting'))).toBe(false);
    expect(worthShowing(plain(CAPTURE).replace(/\$\d/g, '-'))).toBe(false);
  });
});
