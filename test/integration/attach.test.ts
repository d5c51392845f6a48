import { afterEach, describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import xtermHeadless from '@xterm/headless';
import { attach, RESET_TERMINAL_MODES, type AttachResult } from '../../src/attach/attach.js';
import { PtySession, spawnPtySession } from '../../src/sessions/pty.js';
import { waitFor } from '../helpers/wait.js';

// Attach mode on the pty backend: a real agent process in a real PTY, the user's terminal
// played by stand-in streams whose output goes into a second headless xterm, so "what the
// user sees" is a screen we can compare. No sleeps: states are waited for.

const { Terminal } = xtermHeadless;
const NODE = process.execPath;
const Q = '\x11';

/**
 * The agent: raw input; a red banner with its size; each chunk read printed back as
 * `got "<json>"`; its size on SIGWINCH; `stream` starts numbered lines until `stop`;
 * `emit "<json>"` writes the string as it is; `quit` exits.
 */
const AGENT = `
process.stdin.setRawMode(true);
process.stdin.setEncoding('utf8');
const out = (s) => process.stdout.write(s + '\\r\\n');
out('\\x1b[31mAGENT READY\\x1b[0m ' + process.stdout.columns + 'x' + process.stdout.rows);
let timer, n = 0;
process.stdin.on('data', (d) => {
  if (d === 'quit') process.exit(0);
  if (d.startsWith('emit ')) process.stdout.write(JSON.parse(d.slice(5)));
  else if (d === 'stream') timer = setInterval(() => { for (let i = 0; i < 5; i++) out('tick ' + ++n); }, 1);
  else if (d === 'stop') { clearInterval(timer); out('stopped at ' + n); }
  else out('got ' + JSON.stringify(d));
});
process.stdout.on('resize', () => out('size ' + process.stdout.columns + 'x' + process.stdout.rows));
`;

/** The user's keyboard: a stream that records raw-mode switches. */
class FakeInput extends PassThrough {
  readonly isTTY = true;
  isRaw = false;
  readonly rawCalls: boolean[] = [];
  setRawMode(raw: boolean): this {
    this.rawCalls.push(raw);
    this.isRaw = raw;
    return this;
  }
}

/** The user's screen: records every write and shows it on an emulator of its size. */
class FakeOutput extends EventEmitter {
  readonly isTTY = true;
  readonly chunks: string[] = [];
  readonly term: InstanceType<typeof Terminal>;
  constructor(public columns: number, public rows: number) {
    super();
    this.term = new Terminal({ cols: columns, rows, scrollback: 5000, allowProposedApi: true });
  }
  write(data: string): boolean {
    this.chunks.push(data);
    this.term.write(data);
    return true;
  }
  get text(): string {
    return this.chunks.join('');
  }
  resizeTo(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.term.resize(columns, rows);
    this.emit('resize');
  }
  screen(): string[] {
    const buf = this.term.buffer.active;
    return Array.from({ length: this.term.rows }, (_, y) => buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '');
  }
}

const dirs: string[] = [];
const sessions: PtySession[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.dispose();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function startAgent(): Promise<PtySession> {
  const dir = mkdtempSync(join(tmpdir(), 'adt-attach-'));
  dirs.push(dir);
  const script = join(dir, 'agent.cjs');
  writeFileSync(script, AGENT);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const s = spawnPtySession({ name: 'auto-attach-000001', argv: [NODE, script], cwd: dir, env }) as PtySession;
  sessions.push(s);
  await waitFor(() => s.screen().join('\n').includes('AGENT READY 120x40'), 'the agent at its default size');
  return s;
}

const screenOf = (s: PtySession) => s.screen().join('\n');

/** The last `n` lines of an emulator's buffer, history included. */
function bufferTail(term: InstanceType<typeof Terminal>, n: number): string[] {
  const buf = term.buffer.active;
  const lines = Array.from({ length: buf.length }, (_, y) => buf.getLine(y)?.translateToString(true) ?? '');
  while (lines.at(-1) === '') lines.pop();
  return lines.slice(-n);
}

/** A copy of a quiet session's emulator, history included (rebuilt from its serialization). */
async function copyOf(s: PtySession): Promise<InstanceType<typeof Terminal>> {
  const t = new Terminal({ cols: s.cols, rows: s.rows, scrollback: 5000, allowProposedApi: true });
  await new Promise<void>((r) => t.write(s.serialize(), r));
  return t;
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('attach (pty backend)', () => {
  it('draws the agent screen first, passes keys and output through, follows the size, and detaches mid-chunk', async () => {
    const s = await startAgent();
    const input = new FakeInput();
    const output = new FakeOutput(100, 30);
    let result: AttachResult | undefined;
    const attached = attach(s, { input, output }, { detachByte: Q }).then((r) => (result = r));

    // The screen as it was comes first: reset modes, then the serialized emulator.
    const first = await waitFor(() => output.chunks[0], 'the first write');
    expect(first.startsWith(RESET_TERMINAL_MODES)).toBe(true);
    expect(first).toContain('\x1b[31mAGENT READY');
    expect(input.rawCalls).toEqual([true]);

    // The agent now has the terminal's size less the last row, which says how to come back.
    await waitFor(() => output.text.includes('size 100x29'), 'the agent resized to the terminal');
    expect(s.cols).toBe(100);
    expect(s.rows).toBe(29);
    await waitFor(() => /^Ctrl-Q: back to autodeck · attached to auto-attach-000001 *$/.test(output.screen()[29]!), 'the way back on the last row');

    // Typed bytes reach the agent as they are (UTF-8 included); its output comes back.
    input.write(Buffer.from('hé ❯'));
    await waitFor(() => output.text.includes('got "hé ❯"'), 'the typed text echoed through');

    // A later resize of the terminal reaches the agent too.
    output.resizeTo(90, 25);
    await waitFor(() => output.text.includes('size 90x24'), 'the agent resized again');
    await waitFor(() => output.screen()[24]!.startsWith('Ctrl-Q: back to autodeck'), 'the line at the new foot');

    // The detach key in the middle of a chunk: what came before is delivered, the rest is not.
    input.write(`abc${Q}def`);
    await attached;
    expect(result).toBe('detached');
    await waitFor(() => screenOf(s).includes('got "abc"'), 'the bytes before the detach key at the agent');
    // Detached: the agent's later output no longer reaches the terminal, which ends reset.
    expect(output.text).not.toContain('got "abc"');
    expect(output.text.endsWith(RESET_TERMINAL_MODES)).toBe(true);
    expect(count(output.text, 'AGENT READY')).toBe(1);

    // Raw mode as before; the agent back at the supervisor's size, and told so.
    expect(input.rawCalls).toEqual([true, false]);
    expect(input.isRaw).toBe(false);
    expect([s.cols, s.rows]).toEqual([120, 40]);
    await waitFor(() => screenOf(s).includes('size 120x40'), 'the agent back at its old size');

    // Keys typed after the detach stay with the caller.
    input.write('late');
    s.write('direct');
    await waitFor(() => screenOf(s).includes('got "direct"'), 'a direct write');
    expect(screenOf(s)).not.toContain('late');
    expect(output.text.endsWith(RESET_TERMINAL_MODES)).toBe(true);
  });

  it('shows the user exactly the agent screen and history: no byte lost or doubled while output streams', async () => {
    const s = await startAgent();
    s.write('stream');
    await waitFor(() => screenOf(s).includes('tick 300'), 'the agent streaming');
    const input = new FakeInput();
    const output = new FakeOutput(100, 30);
    const attached = attach(s, { input, output }, { detachByte: Q });
    input.write('stop'); // soon after the snapshot, so a byte lost or doubled there stays in view
    const stopped = await waitFor(() => /stopped at \d+/.exec(output.text)?.[0], 'the stream stopped');
    // The user's terminal (fed the snapshot, then the raw bytes) and the agent's emulator agree,
    // on the screen and on the last 200 lines of history.
    // The terminal shows the agent's screen above the line that says how to come back.
    await waitFor(() => screenOf(s).includes(stopped) && output.screen().slice(0, -1).join('\n') === screenOf(s), 'the two screens to agree');
    expect(output.screen().at(-1)).toMatch(/^Ctrl-Q: back to autodeck/);
    // the history too (the terminal's, less the line at its foot and the blank rows above it)
    const shown = bufferTail(output.term, 300).slice(0, -1);
    while (shown.at(-1) === '') shown.pop();
    expect(shown.slice(-200)).toEqual(bufferTail(await copyOf(s), 200));
    const ticks = [...output.text.matchAll(/tick (\d+)\r\n/g)].map((m) => Number(m[1]));
    expect(ticks.length).toBeGreaterThan(0);
    expect(new Set(ticks).size).toBe(ticks.length); // passed through once each
    input.write(Q);
    expect(await attached).toBe('detached');
  });

  it('keeps the way back on the last row: through scrolling, a clear screen, a scroll region reset and the other screen', async () => {
    const s = await startAgent();
    const input = new FakeInput();
    const output = new FakeOutput(80, 12);
    const attached = attach(s, { input, output }, { detachByte: Q });
    await waitFor(() => output.text.includes('size 80x11'), 'attached');
    const foot = (): string => output.screen()[11]!;
    const onFoot = (what: string) => waitFor(() => /^Ctrl-Q: back to autodeck/.test(foot()) && !output.screen().slice(0, 11).some((l) => l.includes('Ctrl-Q')), what);
    await onFoot('the line');
    // twenty lines scroll the agent's rows, not the line
    input.write(`emit ${JSON.stringify(Array.from({ length: 20 }, (_, i) => `line ${i}\r\n`).join(''))}`);
    await waitFor(() => output.screen().some((l) => l === 'line 19'), 'the agent scrolled');
    await onFoot('the line after scrolling');
    // a clear screen, a region reset, the alternate screen and back: each time the line comes back
    const marks = ['\x1b[2J', '\x1b[H\x1b[J', '\x1b[r\x1b[11;1H\r\n\r\n', '\x1b[?1049h', '\x1b[?1049l', '\x1bc'];
    for (const [i, seq] of marks.entries()) {
      input.write(`emit ${JSON.stringify(`${seq}mark-${i}`)}`);
      await waitFor(() => output.screen().some((l) => l.includes(`mark-${i}`)), `mark-${i} on screen`);
      await onFoot(`the line after ${JSON.stringify(seq)}`);
      // and above it, the agent's screen exactly: nothing it scrolled moved the line into its rows
      await waitFor(() => output.screen().slice(0, 11).join('\n') === screenOf(s), `the screens to agree after ${JSON.stringify(seq)}`);
    }
    input.write(Q);
    expect(await attached).toBe('detached');
  });

  it('resolves "exited" when the agent exits while attached, and still restores the terminal', async () => {
    const s = await startAgent();
    const input = new FakeInput();
    const output = new FakeOutput(80, 24);
    const attached = attach(s, { input, output }, { detachByte: Q });
    await waitFor(() => output.text.includes('size 80x23'), 'attached');
    input.write('quit');
    expect(await attached).toBe('exited');
    expect(s.exited).toBe(true);
    expect(input.rawCalls).toEqual([true, false]);
    expect(output.text.endsWith(RESET_TERMINAL_MODES)).toBe(true);
    expect([s.cols, s.rows]).toEqual([120, 40]);
  });

  it('does not touch the terminal for an agent that has already exited', async () => {
    const s = await startAgent();
    s.write('quit');
    await waitFor(() => s.exited, 'the agent to exit');
    const input = new FakeInput();
    const output = new FakeOutput(80, 24);
    expect(await attach(s, { input, output }, { detachByte: Q })).toBe('exited');
    expect(output.chunks).toEqual([]);
    expect(input.rawCalls).toEqual([]);
  });
});
