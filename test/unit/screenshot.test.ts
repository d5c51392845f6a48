import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { ansiToSvg } from '../tools/ansiSvg.js';
import { worthShowing } from '../tools/screenshot.js';

// The README's picture: the conversion `npm run screenshot` makes, on a real capture of
// the demo (no tmux or display needed here), gives a valid SVG that says what the screen said.

const CAPTURE = readFileSync(join(import.meta.dirname, '../fixtures/screens/dashboard/demo-120x30.ansi'), 'utf8');
const plain = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');

interface Text { '#text'?: string | number; '@_fill'?: string; '@_x'?: string }

describe('the dashboard picture', () => {
  const svg = ansiToSvg(CAPTURE, { cols: 120, rows: 30, title: 'autodeck <demo> & co' });

  it('is well-formed SVG of the terminal\'s size', () => {
    expect(XMLValidator.validate(svg)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false }).parse(svg) as { svg: Record<string, unknown> };
    expect(doc.svg['@_xmlns']).toBe('http://www.w3.org/2000/svg');
    expect(doc.svg['@_viewBox']).toBe('0 0 1032 564');
    expect(doc.svg.title).toBe('autodeck <demo> & co'); // escaped, read back as it was
  });

  it('holds the screen\'s text: the header, the column titles, every module, in its colours', () => {
    const texts = (new XMLParser({ ignoreAttributes: false }).parse(svg) as { svg: { g: { text: Text[] } } }).svg.g.text;
    const all = texts.map((t) => String(t['#text'] ?? '')).join('\n');
    const header = plain(CAPTURE.split('\n')[0]!);
    expect(header).toMatch(/^autodeck demo · \S+ · 7 modules/);
    expect(all).toContain('autodeck demo · ');
    expect(all).toMatch(/MODULE\s+STATE\s+ITER\s+STEP\s+ELAPSED/);
    for (const m of ['add-login-page', 'clean-old-branches', 'translate-docs', 'upgrade-framework']) expect(all).toContain(m);
    // the header's counts in their tones: running cyan, blocked red
    expect(texts.find((t) => /▶ \d+ running/.test(String(t['#text'])))?.['@_fill']).toBe('rgb(0,187,187)');
    expect(texts.find((t) => /✗ \d+ blocked/.test(String(t['#text'])))?.['@_fill']).toBe('rgb(187,0,0)');
    // the bars survive as text
    expect(all).toMatch(/[█▉▊▋▌▍▎▏]+░* \d+\/30/);
  });

  it('keeps the columns in line: a text starts at the x of its terminal column', () => {
    const texts = (new XMLParser({ ignoreAttributes: false }).parse(svg) as { svg: { g: { text: Text[] } } }).svg.g.text;
    const line = plain(CAPTURE.split('\n').find((l) => plain(l).includes('upgrade-framework'))!);
    const state = texts.find((t) => String(t['#text']).startsWith('✗ blocked') && t['@_x'] !== undefined && Number(t['@_x']) > 100)!;
    expect(Number(state['@_x'])).toBeCloseTo(12 + [...line.slice(0, line.indexOf('✗ blocked'))].length * 8.4, 1);
  });

  it('the script waits for a screen with a quota countdown, loops ended and loops running', () => {
    expect(worthShowing(plain(CAPTURE))).toBe(true);
    expect(worthShowing(plain(CAPTURE).replace(/reset in/g, 'waiting'))).toBe(false);
  });
});
