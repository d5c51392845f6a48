import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { childProcess } from '../lazy.js';
import type { Session, SessionExit, SessionFactory, SpawnSpec } from './session.js';
import { ExitPoller } from './tmuxExitPoller.js';
import { OutputPipe } from './tmuxOutputPipe.js';
import { buildSpawnCommand, checkSessionName, escapeTmuxFormat, planEnv, tmuxChain, tmuxSessionName } from './tmuxCommand.js';
import {
  clientEnv, clientOf, exitOf, globalArgs, nudge, panesOf, serverEnv, tmux, tmuxRaw,
  type Client, type PaneState, type TmuxOptions,
} from './tmuxServer.js';

export { EXIT_POLL_MS } from './tmuxExitPoller.js';

/**
 * The `tmux` backend: each agent in a detached tmux session on a private
 * server (`tmux -L autodeck`, no user config), so it outlives the supervisor, an ssh drop
 * or a crash, and a new supervisor adopts it with `attachTmuxSession`.
 *
 * What tmux 3.3 does, verified (test/integration/tmux.test.ts, test/unit/tmux-args.test.ts):
 * - `new-session ... -- prog arg...` with two or more words execvp()s them, no shell;
 *   one word goes through `sh -c`, so a one-word argv runs through a fixed trampoline
 *   (`/bin/sh -c 'exec "$0" "$@"' prog`) that never parses the words.
 * - tmux ends a command at ANY argument ending in `;` (`x;` becomes `x`, then a new
 *   command); `x\;` is the literal `x;`. Every word we pass is escaped that way.
 * - `-c` is expanded as a format (`#(cmd)` would run a command), so `#` is doubled.
 * - `-e` values arrive as given, but tmux then sets TERM, TERM_PROGRAM(_VERSION), TMUX,
 *   TMUX_PANE, PWD and SHELL (= default-shell) itself, and PATH from the tmux client's
 *   own environment. tmux cannot unset a variable for one pane.
 * - A command is one message of at most 16 KiB; longer ones make tmux fail, so a very
 *   long argv or environment goes through a launcher script instead.
 * - `send-keys -H` sends each byte as is (all 256 values, raw mode).
 * - `remain-on-exit` must be on before the program can exit: the options are set in the
 *   same tmux call, before `new-session`. With the default `remain-on-exit-format` tmux
 *   scrolls the screen one line and writes "Pane is dead"; an empty format leaves the
 *   agent's last screen as it was.
 * - tmux 3.3a can miss the SIGCHLD of a pane started in the call that started its server:
 *   the pane reads as dead with no status, the agent a zombie, for ever. Any later
 *   SIGCHLD reaps it, so a dead pane without a status gets its server a SIGCHLD.
 * - `resize-window -x -y` resizes a detached session's window (and sets its
 *   window-size to manual).
 * - `-t name` also matches a prefix, and a window target can fall back to another
 *   session: sessions are named `=name` (exact), panes by their id (`%N`).
 */

/** The pty backend's screen. */
const DEFAULT_COLS = 120;
const DEFAULT_ROWS = 40;
/** Bytes per `send-keys -H` call: three bytes of command per byte typed. */
const WRITE_CHUNK_BYTES = 2048;
/** The exit code reported when the session vanished (killed from outside): the status is unknown. */
export const VANISHED_EXIT_CODE = -1;

/**
 * An agent in a tmux session. Besides `Session`: `paneId`, `socket`, and `detach()`,
 * which lets go of a session without ending it (a new supervisor adopts it later).
 */
export class TmuxSession implements Session {
  readonly backend = 'tmux' as const;
  private exitInfo: SessionExit | undefined;
  private readonly exitListeners: ((e: SessionExit) => void)[] = [];
  private readonly outputListeners = new Set<(data: string) => void>();
  private output: OutputPipe | undefined;
  private lastScreen: string[];
  private released = false;

  /** Use spawnTmuxSession / attachTmuxSession. */
  constructor(
    private readonly client: Client,
    readonly name: string,
    readonly paneId: string,
    readonly pid: number,
    rows: number,
    exit?: SessionExit,
  ) {
    this.lastScreen = Array.from({ length: rows }, () => '');
    this.exitInfo = exit;
    if (!exit) ExitPoller.of(client).add(this);
  }

  get socket(): string {
    return this.client.socket;
  }

  get exited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** From the poller: our pane's state, or undefined when it is gone. */
  observe(p: PaneState | undefined): void {
    if (this.exitInfo || this.released) return;
    // A pane id is only unique within one server's life: the pid tells ours apart.
    if (!p || p.pid !== this.pid) return this.noteExit({ exitCode: VANISHED_EXIT_CODE });
    const exit = exitOf(p);
    if (exit) this.noteExit(exit);
    else nudge(p);
  }

  private noteExit(exit: SessionExit, later = false): void {
    if (this.exitInfo) return;
    this.exitInfo = exit;
    ExitPoller.of(this.client).remove(this);
    const listeners = this.exitListeners.splice(0);
    const call = () => {
      for (const l of listeners) l(exit);
    };
    if (later) queueMicrotask(call);
    else call();
  }

  write(data: string): void {
    if (this.exited || this.released || data.length === 0) return;
    const bytes = Buffer.from(data, 'utf8');
    try {
      for (let i = 0; i < bytes.length; i += WRITE_CHUNK_BYTES) {
        const hex = [...bytes.subarray(i, i + WRITE_CHUNK_BYTES)].map((b) => b.toString(16).padStart(2, '0'));
        tmux(this.client, [['send-keys', '-t', this.paneId, '-H', ...hex]]);
      }
    } catch { /* the agent exited between the check and the write */ }
  }

  resize(cols: number, rows: number): void {
    if (this.released) return;
    try {
      tmux(this.client, [['resize-window', '-t', this.paneId, '-x', String(cols), '-y', String(rows)]]);
    } catch { /* session gone */ }
  }

  screen(): string[] {
    if (!this.released) {
      try {
        const lines = tmux(this.client, [['capture-pane', '-p', '-t', this.paneId]]).split('\n');
        if (lines.at(-1) === '') lines.pop(); // one line per row of the pane, each ended by \n
        this.lastScreen = lines;
      } catch { /* gone: its last screen stays */ }
    }
    return [...this.lastScreen];
  }

  onExit(listener: (exit: SessionExit) => void): void {
    if (this.exitInfo) {
      const exit = this.exitInfo;
      queueMicrotask(() => listener(exit));
    } else this.exitListeners.push(listener);
  }

  onOutput(listener: (data: string) => void): () => void {
    if (this.released) return () => {};
    this.outputListeners.add(listener);
    if (!this.output && !this.exited) {
      try {
        this.output = new OutputPipe(this.client, this.paneId, (d) => {
          for (const l of this.outputListeners) l(d);
        });
      } catch { /* no output stream (pane gone, no mkfifo): screens are still captured */ }
    }
    return () => {
      this.outputListeners.delete(listener);
      if (this.outputListeners.size === 0) this.closeOutput();
    };
  }

  private closeOutput(): void {
    this.output?.close();
    this.output = undefined;
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.exited || this.released) return;
    try {
      process.kill(-this.pid, signal); // tmux made the agent a session and group leader
    } catch {
      try {
        process.kill(this.pid, signal);
      } catch { /* already gone */ }
    }
  }

  /** The window's size now; undefined when the session is gone. */
  size(): { cols: number; rows: number } | undefined {
    if (this.released) return undefined;
    try {
      const [cols, rows] = tmux(this.client, [['display-message', '-p', '-t', this.paneId, '#{window_width} #{window_height}']]).trim().split(' ').map(Number);
      return cols! > 0 && rows! > 0 ? { cols: cols!, rows: rows! } : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The tmux client that hands a terminal to this session (argv, no shell), with our
   * client environment: without TMUX and TMUX_PANE, since tmux refuses to nest. Before
   * attaching it binds `detachKey` (a tmux key name, `C-q`) to detach, server-wide, so
   * the dashboard's key works here too; and lets the window follow the client's size,
   * which resize() had fixed (resize-window sets window-size to manual). `statusLine`, when
   * given, is this session's status line while a person is attached (how to come back).
   */
  attachCommand(detachKey?: string, statusLine?: string): { file: string; args: string[]; env: Record<string, string> } {
    // set-option reads `=name` as a pane's target: its session is `=name:`
    const options = `=${this.name}:`;
    const commands = [
      ...(detachKey ? [['bind-key', '-n', detachKey, 'detach-client']] : []),
      ...(statusLine ? [
        ['set-option', '-t', options, 'status', 'on'],
        ['set-option', '-t', options, 'status-left', ` ${escapeTmuxFormat(statusLine)} `],
        ['set-option', '-t', options, 'status-left-length', String(statusLine.length + 2)],
        ['set-option', '-t', options, 'status-right', ''],
      ] : []),
      ['set-option', '-w', '-t', this.paneId, 'window-size', 'latest'],
      ['attach-session', '-t', `=${this.name}`],
    ];
    return { file: this.client.program, args: [...globalArgs(this.client), ...tmuxChain(commands)], env: clientEnv() };
  }

  /** Detaches every client from this session; the agent goes on. */
  detachClients(): void {
    try {
      tmux(this.client, [['detach-client', '-s', `=${this.name}`]]);
    } catch { /* none attached, or gone */ }
  }

  /**
   * Looks at the pane now instead of at the next poll (an exit found is reported as the
   * poller would). True when the agent has exited or its session is gone.
   */
  pollExit(): boolean {
    if (this.exitInfo || this.released) return this.exited;
    let pane: PaneState | undefined;
    try {
      pane = panesOf(this.client, this.name)?.find((p) => p.paneId === this.paneId && p.pid === this.pid);
    } catch {
      return false; // tmux failing: not known to have exited
    }
    this.observe(pane);
    return this.exited || !pane || pane.dead;
  }

  /** Stops watching and listening; the session and its agent go on. */
  detach(): void {
    if (this.released) return;
    this.released = true;
    ExitPoller.of(this.client).remove(this);
    this.closeOutput();
    this.outputListeners.clear();
  }

  /** Ends the agent (SIGKILL to its group if it still runs) and its tmux session. */
  dispose(): void {
    if (this.released) return;
    this.detach();
    let ours: PaneState | undefined;
    try {
      ours = panesOf(this.client, this.name)?.find((p) => p.paneId === this.paneId && p.pid === this.pid);
    } catch { /* tmux failing: nothing more we can check */ }
    if (!ours) return; // gone already, or the name now belongs to another session
    if (!ours.dead && !this.exited) {
      try {
        process.kill(-this.pid, 'SIGKILL');
      } catch { /* gone meanwhile */ }
      this.noteExit({ exitCode: 0, signal: 9 }, true); // as the pty backend: after dispose returns
    }
    try {
      tmux(this.client, [['kill-session', '-t', `=${this.name}`]]);
    } catch { /* no such session: fine */ }
  }
}

/* ------------------------------------------------------------------ API */

/** Starts `spec` in a new detached tmux session. A dead session of that name is replaced; a live one is an error. */
export function spawnTmuxSession(spec: SpawnSpec, opts: TmuxOptions = {}): TmuxSession {
  checkSessionName(spec.name);
  if (!spec.argv[0]) throw new Error('empty agent command');
  const cwd = resolve(spec.cwd);
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`working directory not found: ${cwd}`);
  const c = clientOf(opts);
  const cols = spec.cols ?? DEFAULT_COLS;
  const rows = spec.rows ?? DEFAULT_ROWS;

  const before = panesOf(c, spec.name);
  if (before?.some((p) => !p.dead)) {
    throw new Error(`tmux session ${spec.name} already runs an agent (pid ${before[0]!.pid}): adopt it or end it first`);
  }
  if (before) {
    try {
      tmux(c, [['kill-session', '-t', `=${spec.name}`]]);
    } catch { /* gone meanwhile */ }
  }

  // tmux gives a pane its client's PATH: the spawning client runs with the agent's.
  const env = clientEnv({ value: spec.env.PATH });
  const { global, defaultShell } = serverEnv(c, env);
  const plan = planEnv(spec.env, global, defaultShell);
  let launcherDir: string | undefined;
  const cmd = buildSpawnCommand({ name: spec.name, argv: spec.argv, cwd, cols, rows }, plan, () => {
    launcherDir = mkdtempSync(join(tmpdir(), 'autodeck-tmux-'));
    return join(launcherDir, 'launch.sh');
  });
  let out: string;
  try {
    if (cmd.launcher) writeFileSync(cmd.launcher.path, cmd.launcher.script, { mode: 0o600 });
    out = tmuxRaw(c, cmd.args, env);
  } catch (err) {
    if (launcherDir) rmSync(launcherDir, { recursive: true, force: true });
    throw new Error(`tmux could not start ${spec.name}: ${(err as Error).message}`);
  }
  const [paneId, pid] = out.trim().split('\t');
  if (!paneId?.startsWith('%') || !(Number(pid) > 0)) throw new Error(`tmux started ${spec.name} but said ${JSON.stringify(out)}`);
  return new TmuxSession(c, spec.name, paneId, Number(pid), rows);
}

/** A SessionFactory for the tmux backend, on `opts.socket` (default `autodeck`); `spec.name` is autodeck's session id. */
export function tmuxFactory(opts: TmuxOptions = {}): SessionFactory {
  return (spec) => spawnTmuxSession({ ...spec, name: tmuxSessionName(spec.name) }, opts);
}

/**
 * Adopts an existing session, alive or with a dead pane, without starting anything:
 * its first pane is the agent's. Undefined when there is no such session.
 */
export function attachTmuxSession(name: string, opts: TmuxOptions = {}): TmuxSession | undefined {
  checkSessionName(name);
  const c = clientOf(opts);
  const pane = panesOf(c, name)?.[0];
  if (!pane) return undefined;
  nudge(pane);
  return new TmuxSession(c, name, pane.paneId, pane.pid, pane.height, exitOf(pane));
}
