import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnPtySession } from '../../src/sessions/pty.js';
import type { Session } from '../../src/sessions/session.js';
import { TmuxPane } from './tmux.js';
import { waitFor } from './wait.js';

/**
 * Capturing a real agent CLI's screens as fixtures, in a private tmux server (`tmux
 * capture-pane -p`: plain text) or through autodeck's own PTY backend (node-pty and the
 * headless xterm: what the watchdog reads), and recording each in a manifest with the
 * program's version, how it was produced and the classification it should get.
 */

export type Expected = 'quota' | 'unknown_command' | 'compacting' | 'permission_prompt' | 'question' | 'yes_no_prompt' | 'continue_prompt' | 'idle' | 'busy' | 'exited' | 'unknown';

export interface ManifestEntry {
  file: string;
  state: string;
  produced: string;
  source: 'real capture';
  /** Where the screen was read: tmux capture-pane, or autodeck's PTY emulator. */
  terminal: 'tmux' | 'pty';
  classification: Expected;
  /** What a structured source says at that moment, when it decides instead of the screen. */
  structured?: string;
  note?: string;
}

export interface Manifest {
  agent: string;
  version: string;
  terminal: string;
  capturedAt: string;
  fixtures: ManifestEntry[];
}

/** The fixtures of one agent version: saved screens and their manifest, merged with what is there. */
export class FixtureSet {
  private readonly entries = new Map<string, ManifestEntry>();
  constructor(readonly dir: string, readonly agent: string, readonly version: string) {}

  save(state: string, screen: string, entry: Omit<ManifestEntry, 'file' | 'state' | 'source'>): void {
    mkdirSync(this.dir, { recursive: true });
    const file = `${state}.txt`;
    writeFileSync(join(this.dir, file), screen.endsWith('\n') ? screen : `${screen}\n`);
    this.entries.set(state, { file, state, source: 'real capture', ...entry });
  }

  writeManifest(): void {
    if (this.entries.size === 0) return;
    const path = join(this.dir, 'manifest.json');
    const old = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Manifest).fixtures : [];
    const merged = new Map(old.map((e) => [e.state, e]));
    for (const [k, v] of this.entries) merged.set(k, v);
    const manifest: Manifest = {
      agent: this.agent,
      version: this.version,
      terminal: 'tmux 3.3a 120x40 capture-pane -p, or autodeck\'s PTY (node-pty + @xterm/headless) 120x40; plain text, trailing spaces trimmed',
      capturedAt: new Date().toISOString().slice(0, 10),
      fixtures: [...merged.values()].sort((a, b) => a.state.localeCompare(b.state)),
    };
    writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
  }
}

/** Reads a fixture set's manifest and screens (for the tests that classify them). */
export function readFixtureSet(dir: string): { manifest: Manifest; screens: { entry: ManifestEntry; lines: string[] }[] } {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  return {
    manifest,
    screens: manifest.fixtures.map((entry) => ({ entry, lines: readFileSync(join(dir, entry.file), 'utf8').replace(/\n$/, '').split('\n') })),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** tmux key names as the bytes a terminal sends. */
const KEY_BYTES: Record<string, string> = {
  Enter: '\r', Escape: '\x1b', 'C-c': '\x03', 'C-d': '\x04', 'C-l': '\x0c', Down: '\x1b[B', Up: '\x1b[A', Tab: '\t', BTab: '\x1b[Z', F2: '\x1bOQ',
};

/** A running agent in a terminal: its screen, typing into it, its end. */
export interface Terminal {
  readonly kind: 'tmux' | 'pty';
  screen(): Promise<string>;
  type(text: string): Promise<void>;
  keys(...names: string[]): Promise<void>;
  /** The agent's pid (the program the terminal started). */
  pid(): Promise<number | undefined>;
  exited(): Promise<{ status?: number } | undefined>;
  kill(): Promise<void>;
}

export async function startTerminal(kind: 'tmux' | 'pty', opts: { argv: string[]; cwd: string; env: Record<string, string> }): Promise<Terminal> {
  if (kind === 'tmux') {
    const pane = await TmuxPane.start({ argv: opts.argv, cwd: opts.cwd, env: opts.env });
    return {
      kind,
      screen: () => tmuxScreen(pane),
      type: async (text) => { await pane.type(text); },
      keys: async (...names) => { await pane.keys(...names); },
      pid: async () => Number((await pane.tmux(['display-message', '-p', '-t', 'main', '#{pane_pid}'])).trim()) || undefined,
      exited: () => pane.exited(),
      kill: () => pane.kill(),
    };
  }
  const session: Session = spawnPtySession({ name: `capture-${process.pid}`, argv: opts.argv, cwd: opts.cwd, env: opts.env, cols: 120, rows: 40 });
  let exit: { status?: number } | undefined;
  session.onExit((e) => { exit = { status: e.exitCode }; });
  const parsed = () => new Promise<void>((resolve) => (session.whenParsed ? session.whenParsed(resolve) : resolve()));
  return {
    kind,
    screen: async () => {
      await parsed();
      return `${session.screen().map((l) => l.replace(/\s+$/, '')).join('\n')}\n`;
    },
    type: async (text) => { session.write(text); },
    keys: async (...names) => {
      for (const n of names) session.write(KEY_BYTES[n] ?? n);
    },
    pid: async () => session.pid,
    exited: async () => exit,
    kill: async () => {
      session.dispose();
      await waitFor(() => exit !== undefined || session.exited, 'the PTY agent to end', 10_000, 50).catch(() => undefined);
    },
  };
}

/**
 * The pane as text. After the program exits, tmux (remain-on-exit) writes its own
 * `Pane is dead (status N, <date>)` line: not the agent's, so it is left out.
 */
async function tmuxScreen(pane: TmuxPane): Promise<string> {
  const text = await pane.capture();
  if (!/^Pane is dead \(/m.test(text)) return text;
  const lines = (await pane.tmux(['capture-pane', '-p', '-t', 'main', '-S', '-1'])).replace(/\n$/, '').split('\n');
  return `${lines.filter((l) => !/^Pane is dead \(/.test(l)).slice(-40).join('\n')}\n`;
}

/** Polls the screen until `re` matches; returns it. */
export function until(term: Terminal, re: RegExp, what: string, timeoutMs = 30_000): Promise<string> {
  return waitFor(async () => {
    const s = await term.screen();
    return re.test(s) ? s : undefined;
  }, what, timeoutMs, 100).catch(async (err: unknown) => {
    throw new Error(`${String(err)}; screen:\n${await term.screen()}`);
  });
}

/** Polls until the screen stops changing for a moment (bounded); returns it. */
export async function settled(term: Terminal, quietMs = 600, maxMs = 6_000): Promise<string> {
  let prev = await term.screen();
  const deadline = Date.now() + maxMs;
  for (;;) {
    await sleep(quietMs);
    const cur = await term.screen();
    if (cur === prev || Date.now() > deadline) return cur;
    prev = cur;
  }
}

/** Text, a pause, then Enter as its own write (a composer swallows an Enter inside a paste). */
export async function typeLine(term: Terminal, text: string): Promise<void> {
  await term.type(text);
  await sleep(200);
  await term.keys('Enter');
}
