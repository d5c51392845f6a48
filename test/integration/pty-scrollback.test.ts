import { afterEach, expect, it, vi } from 'vitest';
import xtermHeadless from '@xterm/headless';
import { PtySession, SCROLLBACK_LINES, EMULATOR_SCROLLBACK_LINES } from '../../src/sessions/pty.js';
import { waitFor } from '../helpers/wait.js';

// An agent's scrollback is bounded at SCROLLBACK_LINES; the emulator keeps the
// newest EMULATOR_SCROLLBACK_LINES of it, the rest is kept as text. What attach replays
// (serialize) must still be every one of the last SCROLLBACK_LINES lines, in order, across
// resizes that push rows into the scrollback and pull them back.

const { Terminal } = xtermHeadless;
let session: PtySession | undefined;
afterEach(() => {
  session?.dispose();
  session = undefined;
});

/** The lines a terminal shows after being fed `bytes`, history included, trailing blanks dropped. */
async function replayed(bytes: string, cols: number, rows: number): Promise<string[]> {
  const t = new Terminal({ cols, rows, scrollback: 5000, allowProposedApi: true });
  await new Promise<void>((r) => t.write(bytes, r));
  const buf = t.buffer.active;
  const lines = Array.from({ length: buf.length }, (_, y) => buf.getLine(y)?.translateToString(true) ?? '');
  while (lines.at(-1) === '') lines.pop();
  t.dispose();
  return lines;
}

/** What attach replays: consecutive lines, ending at line `last`, as many as the bound allows. */
async function expectReplayEndsAt(s: PtySession, last: number): Promise<void> {
  const numbers = (await replayed(s.serialize(), s.cols, s.rows)).filter((l) => l.startsWith('line ')).map((l) => Number(l.slice(5)));
  expect(numbers.at(-1)).toBe(last);
  numbers.forEach((n, i) => i > 0 && expect(n, `after line ${numbers[i - 1]}`).toBe(numbers[i - 1]! + 1));
  expect(numbers.length).toBeGreaterThanOrEqual(SCROLLBACK_LINES - 5);
  expect(numbers.length).toBeLessThanOrEqual(SCROLLBACK_LINES + s.rows);
}

/** An agent that prints `line N` for each number it is sent on a line of its input. */
const AGENT = `
process.stdin.setEncoding('utf8');
let next = 0;
process.stdin.on('data', (d) => {
  for (const n of d.split(/\\s+/).filter(Boolean)) {
    let out = '';
    for (let i = 0; i < Number(n); i++) out += 'line ' + next++ + '\\r\\n';
    process.stdout.write(out + 'printed ' + next + '\\r\\n');
  }
});
process.stdout.write('ready\\r\\n');
`;

it('replays the last SCROLLBACK_LINES lines, in order, through resizes, the older ones as text', async () => {
  expect(EMULATOR_SCROLLBACK_LINES).toBeLessThan(SCROLLBACK_LINES);
  session = new PtySession({ name: 'scrollback', argv: [process.execPath, '-e', AGENT], cwd: process.cwd(), env: process.env as Record<string, string> });
  const s = session;
  await waitFor(() => (s.screen().join('\n').includes('ready') ? true : undefined), 'the agent');
  s.write('1500\r');
  await waitFor(() => (s.screen().join('\n').includes('printed 1500') ? true : undefined), 'the first 1500 lines');
  // Fewer rows push screen lines into the scrollback; more pull them back.
  s.resize(100, 25);
  s.resize(120, 40);
  s.write('700\r');
  await waitFor(() => (s.screen().join('\n').includes('printed 2200') ? true : undefined), '700 more');

  await expectReplayEndsAt(s, 2199);
}, 30_000);

it('keeps only EMULATOR_SCROLLBACK_LINES in the emulator once output rests, the rest as text, none lost', async () => {
  session = new PtySession({ name: 'scrollback-rest', argv: [process.execPath, '-e', AGENT], cwd: process.cwd(), env: process.env as Record<string, string> });
  const s = session;
  /** The emulator's own scrollback length: its lines are the costly ones (a cell array each). */
  const emulatorScrollback = (): number => (s as unknown as { term: { buffer: { normal: { baseY: number } } } }).term.buffer.normal.baseY;
  await waitFor(() => (s.screen().join('\n').includes('ready') ? true : undefined), 'the agent');
  // A flood past the whole bound in one go (xterm drops the oldest itself), then a little more.
  s.write('2500\r');
  await waitFor(() => (s.screen().join('\n').includes('printed 2500') ? true : undefined), 'the first 2500 lines');
  expect(emulatorScrollback()).toBeGreaterThan(EMULATOR_SCROLLBACK_LINES); // while output runs: no text made yet
  await waitFor(() => emulatorScrollback() <= EMULATOR_SCROLLBACK_LINES || undefined, 'the emulator back to its own scrollback', 5_000);
  s.write('150\r');
  await waitFor(() => (s.screen().join('\n').includes('printed 2650') ? true : undefined), '150 more');
  await waitFor(() => emulatorScrollback() <= EMULATOR_SCROLLBACK_LINES || undefined, 'at rest again', 5_000);

  await expectReplayEndsAt(s, 2649);
}, 30_000);

it('disposed with output still being parsed: no warning from the emulator, nothing touched after', async () => {
  // The few-descriptors fault row caught xterm's "add a disposable to a DisposableStore that
  // has already been disposed of" on stderr: a write callback reading the buffer after dispose().
  const warnings: unknown[][] = [];
  const spies = [vi.spyOn(console, 'warn'), vi.spyOn(console, 'error'), vi.spyOn(console, 'log')];
  for (const s of spies) s.mockImplementation((...args: unknown[]) => void warnings.push(args));
  try {
    for (let round = 0; round < 5; round++) {
      // Nothing reads the screen first (as with an agent whose start failed): the emulator's
      // buffer object is first asked for in a write callback.
      const s = new PtySession({ name: `dispose-${round}`, argv: [process.execPath, '-e', AGENT], cwd: process.cwd(), env: process.env as Record<string, string> });
      // Disposed at its first output, which xterm parses later, on a timer.
      await new Promise<void>((resolve) => {
        const off = s.onOutput(() => {
          off();
          s.dispose();
          resolve();
        });
      });
      await new Promise((r) => setTimeout(r, 100)); // the queued writes' callbacks run now
    }
  } finally {
    for (const s of spies) s.mockRestore();
  }
  expect(warnings).toEqual([]);
});
