import { afterEach, expect, it } from 'vitest';
import xtermHeadless from '@xterm/headless';
import { PtySession, PARSE_SLICE } from '../../src/sessions/pty.js';
import { OutputGate } from '../../src/sessions/outputGate.js';
import { waitFor } from '../helpers/wait.js';

// Input first (issue 14): the dashboard holds the agents' output, unparsed, from a key's read
// to its frame. Held or not, and fed to the emulator a slice at a time, an agent's output
// must come out the same: nothing lost, nothing reordered, whenParsed still meeting the
// bytes in order. Real PTYs: one flood run with the gate held and released at random
// moments (as keys would), one with it never held; same screen, same scrollback.

const { Terminal } = xtermHeadless;
const sessions: PtySession[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.dispose();
});

/**
 * A flood (~1.5 MB, several slices), colours, wide characters (a surrogate pair for the
 * slices to cut), a cursor move and a partial line redrawn with \r: the emulator's state
 * depends on every byte in order.
 */
const FLOOD = `
let out = '';
for (let i = 0; i < 20000; i++) {
  out += '\\x1b[3' + (i % 8) + 'm' + 'line ' + i + ' 漢字 😀 ' + 'x'.repeat(i % 37) + '\\x1b[0m\\r\\n';
  if (i % 997 === 0) out += 'partial ' + i + '\\rPARTIAL\\r\\n\\x1b[2A\\x1b[5C*\\x1b[2B\\r';
  if (out.length > 8192) { process.stdout.write(out); out = ''; }
}
process.stdout.write(out + 'done\\r\\n');
setTimeout(() => {}, 60000); // stays alive: the screen is read before it exits
`;

function spawn(gate: OutputGate): PtySession {
  const s = new PtySession({ name: 'gate-test', argv: [process.execPath, '-e', FLOOD], cwd: process.cwd(), env: { PATH: process.env.PATH ?? '' }, cols: 100, rows: 30 }, gate);
  sessions.push(s);
  return s;
}

async function parsed(s: PtySession): Promise<void> {
  await new Promise<void>((r) => s.whenParsed(r));
}

/** The screen and history of a terminal fed `bytes`, for what a whenParsed callback should have met. */
async function reference(bytes: string): Promise<string[]> {
  const t = new Terminal({ cols: 100, rows: 30, scrollback: 0, allowProposedApi: true });
  await new Promise<void>((r) => t.write(bytes, r));
  const buf = t.buffer.active;
  const lines = Array.from({ length: t.rows }, (_, y) => buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '');
  t.dispose();
  return lines;
}

it('an agent\'s flood comes out the same with the output held and released at random moments', async () => {
  // Never held.
  const plain = spawn(new OutputGate());
  await waitFor(() => plain.screen().some((l) => l === 'done'), 'the plain run done', 30_000);
  await parsed(plain);

  // Held at random moments for up to 40 ms, released early at times, as keys would.
  const gate = new OutputGate();
  const held = spawn(gate);
  let received = '';
  held.onOutput((d) => { received += d; });
  let holds = 0;
  let heldWhileArriving = 0;
  /** whenParsed calls made while output was queued: the bytes received by then, and the screen seen. */
  const checks: { upTo: number; screen: string[]; order: number }[] = [];
  let order = 0;
  const jitter = setInterval(() => {
    if (Math.random() < 0.5) {
      gate.hold(40);
      holds++;
      if (Math.random() < 0.5) setTimeout(() => gate.release(), Math.random() * 20);
    }
    if (checks.length < 12 && received.length > 0) {
      const upTo = received.length;
      const mine = order++;
      held.whenParsed(() => checks.push({ upTo, screen: held.screen(), order: mine }));
    }
  }, 7);
  const onData = held.onOutput(() => { if (!gate.open) heldWhileArriving++; });
  await waitFor(() => held.screen().some((l) => l === 'done'), 'the held run done', 30_000);
  clearInterval(jitter);
  onData();
  gate.release();
  await parsed(held);

  expect(holds).toBeGreaterThan(5);
  expect(heldWhileArriving).toBeGreaterThan(0); // output did arrive while held: the queue was used
  expect(received.length).toBeGreaterThan(PARSE_SLICE * 4); // several slices
  expect(held.screen()).toEqual(plain.screen());
  expect(held.serialize()).toEqual(plain.serialize());

  // Each whenParsed met exactly the bytes received before it was called, in call order.
  expect(checks.length).toBeGreaterThan(3);
  expect(checks.map((c) => c.order)).toEqual([...checks.map((c) => c.order)].sort((a, b) => a - b));
  for (const c of checks) expect(c.screen, `whenParsed at ${c.upTo} bytes`).toEqual(await reference(received.slice(0, c.upTo)));
}, 60_000);

it('the gate: held until released or its time is up, waiters run once in order, a hold in a waiter keeps the rest waiting', async () => {
  const gate = new OutputGate();
  const ran: string[] = [];
  gate.whenOpen(() => ran.push('open'));
  expect(ran).toEqual(['open']);
  gate.hold(10_000);
  expect(gate.open).toBe(false);
  gate.whenOpen(() => ran.push('a'));
  gate.whenOpen(() => { ran.push('b'); gate.hold(10_000); });
  gate.whenOpen(() => ran.push('c'));
  gate.release();
  expect(ran).toEqual(['open', 'a', 'b']);
  expect(gate.open).toBe(false);
  gate.release();
  expect(ran).toEqual(['open', 'a', 'b', 'c']);
  gate.release(); // open already: nothing runs twice
  expect(ran).toEqual(['open', 'a', 'b', 'c']);

  gate.hold(30); // no release: opens by itself
  gate.whenOpen(() => ran.push('timed'));
  await waitFor(() => gate.open, 'the hold timed out', 2_000, 5);
  expect(ran.at(-1)).toBe('timed');
});
