import { execFile, execFileSync } from 'node:child_process';
import { closeSync, constants, lstatSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import which from 'which';
import type { Session, SessionExit, SessionFactory, SpawnSpec } from './session.js';

/**
 * The `tmux` backend (SPEC 5.7): each agent in a detached tmux session on a private
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

export const DEFAULT_TMUX_SOCKET = 'autodeck';
/** `remain-on-exit-format` and `pane_dead_signal` are 3.3's. */
export const MIN_TMUX_VERSION = '3.3';
/** The pty backend's screen (SPEC 5.7). */
const DEFAULT_COLS = 120;
const DEFAULT_ROWS = 40;
/** Lines a pane keeps above its screen: the pty backend's scrollback bound. */
export const HISTORY_LIMIT = 1000;
/**
 * How often panes are checked for an exited agent. One asynchronous `list-panes -a` per
 * tmux server covers all of its sessions (a few ms of a short-lived process), so the cost
 * does not grow with the number of loops; a quarter second is quick enough for a restart.
 */
export const EXIT_POLL_MS = 250;
/** Below tmux's 16 KiB per command message, with room for its header. */
export const COMMAND_BYTES_MAX = 12_000;
/** Bytes per `send-keys -H` call: three bytes of command per byte typed. */
const WRITE_CHUNK_BYTES = 2048;
const CALL_TIMEOUT_MS = 10_000;
/** The exit code reported when the session vanished (killed from outside): the status is unknown. */
export const VANISHED_EXIT_CODE = -1;
/** Variables tmux sets in every pane, describing its own terminal: left as tmux sets them. */
export const TMUX_OWN_ENV: ReadonlySet<string> = new Set(['TERM', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION', 'TMUX', 'TMUX_PANE', 'PWD']);
/** Runs its arguments without parsing them: `$0` is the program, `"$@"` the rest. */
export const TRAMPOLINE: readonly string[] = ['/bin/sh', '-c', 'exec "$0" "$@"'];
const ENV_PROGRAM = '/usr/bin/env';

export interface TmuxOptions {
  /** The private server's socket name (`tmux -L`); default `autodeck`. */
  socket?: string;
  /** The tmux program; default `tmux` on PATH. */
  tmux?: string;
}

/* ------------------------------------------------------------------ pure helpers */

/** tmux ends a command at an argument ending in `;`; `\;` at the end is a literal `;`. */
export function escapeTmuxArg(word: string): string {
  return word.endsWith(';') ? `${word.slice(0, -1)}\\;` : word;
}

/** Text that tmux expands as a format (`-c`, `pipe-pane`): `##` is a literal `#`. */
export function escapeTmuxFormat(text: string): string {
  return text.replaceAll('#', '##');
}

/** One POSIX sh word, whatever the text (no NUL): single quotes, `'` as `'\''`. */
export function shQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Commands for one tmux call, `;` between them, every word escaped. */
export function tmuxChain(commands: readonly (readonly string[])[]): string[] {
  return commands.flatMap((cmd, i) => [...(i > 0 ? [';'] : []), ...cmd.map(escapeTmuxArg)]);
}

/** Bytes of the command message tmux builds from these words. */
export function commandBytes(words: readonly string[]): number {
  return words.reduce((n, w) => n + Buffer.byteLength(w) + 1, 0);
}

/**
 * `show-environment -s` output: `NAME="value"; export NAME;` (with `$`, backquote, `"`
 * and `\` escaped by a backslash, newlines raw) or `unset NAME;`. Unset names map to null.
 */
export function parseShowEnvironment(out: string): Map<string, string | null> {
  const env = new Map<string, string | null>();
  const entry = /^unset ([^\n;]+);$|^([^=\n]+)="((?:[^"\\]|\\[\s\S])*)"; export \2;$/gm;
  for (const m of out.matchAll(entry)) {
    if (m[1] !== undefined) env.set(m[1], null);
    else if (m[2] !== undefined) env.set(m[2], (m[3] ?? '').replace(/\\([\s\S])/g, '$1'));
  }
  return env;
}

/** `tmux -V` -> [major, minor]; undefined for a build without a number (`tmux master`). */
export function parseTmuxVersion(out: string): [number, number] | undefined {
  const m = /(\d+)\.(\d+)/.exec(out);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

export interface EnvPlan {
  /** Through `new-session -e`. */
  set: [string, string][];
  /** Through the `env` wrapper: variables tmux would set otherwise (SHELL). */
  assign: [string, string][];
  /** Through the `env` wrapper: variables the pane would inherit and the agent must not have. */
  unset: string[];
}

/**
 * How a pane gets exactly `want` (TMUX_OWN_ENV aside), given the server's global
 * environment and default-shell. PATH is not here: tmux takes it from the client's own
 * environment, so the spawning client runs with the agent's PATH.
 */
export function planEnv(want: Readonly<Record<string, string>>, global: ReadonlyMap<string, string | null>, defaultShell: string | undefined): EnvPlan {
  const plan: EnvPlan = { set: [], assign: [], unset: [] };
  const special = (k: string) => TMUX_OWN_ENV.has(k) || k === 'PATH' || k === 'SHELL' || k === '';
  for (const [k, v] of Object.entries(want)) {
    if (special(k)) continue;
    if (global.get(k) !== v) plan.set.push([k, v]);
  }
  for (const [k, v] of global) if (v !== null && !special(k) && !Object.hasOwn(want, k)) plan.unset.push(k);
  if (!Object.hasOwn(want, 'PATH')) plan.unset.push('PATH');
  if (!Object.hasOwn(want, 'SHELL')) plan.unset.push('SHELL');
  else if (want.SHELL !== defaultShell) plan.assign.push(['SHELL', want.SHELL!]);
  return plan;
}

/** `env -u ... -- NAME=value ...`, or nothing when there is nothing to change. */
function envWrapper(unset: readonly string[], assign: readonly (readonly [string, string])[]): string[] {
  if (unset.length === 0 && assign.length === 0) return [];
  return [ENV_PROGRAM, ...unset.flatMap((n) => ['-u', n]), '--', ...assign.map(([k, v]) => `${k}=${v}`)];
}

/** The words tmux runs for `argv`: argv itself when tmux can execvp() it, else through the trampoline. */
export function commandWords(argv: readonly string[], plan: Pick<EnvPlan, 'assign' | 'unset'>): string[] {
  const wrapper = envWrapper(plan.unset, plan.assign);
  if (wrapper.length === 0 && argv.length >= 2) return [...argv];
  return [...wrapper, ...TRAMPOLINE, ...argv];
}

/** Server-wide options, set in the same call before the session so an early exit is seen. */
export const SERVER_OPTIONS: readonly (readonly string[])[] = [
  ['set-option', '-g', 'remain-on-exit', 'on'],
  ['set-option', '-g', 'remain-on-exit-format', ''],
  ['set-option', '-g', 'status', 'off'],
  ['set-option', '-g', 'history-limit', String(HISTORY_LIMIT)],
  // The session environment is ours alone (-e), not copied from the tmux client.
  ['set-option', '-g', 'update-environment', ''],
];

const NEW_PANE_FORMAT = '#{pane_id}\t#{pane_pid}';

export interface SpawnCommand {
  /** Arguments after the global flags (escaped, chained). */
  args: string[];
  /** When set: the launcher to write at `path` before running `args`. */
  launcher?: { path: string; script: string };
}

/** A launcher script: removes itself, then execs the words (quoted for sh). */
export function launcherScript(words: readonly string[]): string {
  return `rm -f -- "$0"; rmdir -- "\${0%/*}" 2>/dev/null\nexec ${words.map(shQuote).join(' ')}\n`;
}

/**
 * The tmux call that creates the session. `launcherPath` is asked for only when the
 * command would exceed tmux's message size.
 */
export function buildSpawnCommand(
  spec: { name: string; argv: readonly string[]; cwd: string; cols: number; rows: number },
  plan: EnvPlan,
  launcherPath: () => string,
): SpawnCommand {
  const head = ['new-session', '-d', '-P', '-F', NEW_PANE_FORMAT, '-s', spec.name, '-x', String(spec.cols), '-y', String(spec.rows), '-c', escapeTmuxFormat(spec.cwd)];
  const direct = tmuxChain([...SERVER_OPTIONS, [...head, ...plan.set.flatMap(([k, v]) => ['-e', `${k}=${v}`]), '--', ...commandWords(spec.argv, plan)]]);
  if (commandBytes(direct) <= COMMAND_BYTES_MAX) return { args: direct };
  const path = launcherPath();
  const words = [...envWrapper(plan.unset, [...plan.set, ...plan.assign]), ...TRAMPOLINE, ...spec.argv];
  return { args: tmuxChain([...SERVER_OPTIONS, [...head, '--', '/bin/sh', path]]), launcher: { path, script: launcherScript(words) } };
}

/** A name tmux keeps as given (it turns `.` and `:` into `_`) and that we can target exactly. */
export function checkSessionName(name: string): void {
  // eslint-disable-next-line no-control-regex
  if (!name || /[.:\x00-\x1f\x7f]/.test(name) || name.startsWith('=') || name.endsWith(';')) {
    throw new Error(`not a usable tmux session name: ${JSON.stringify(name)}`);
  }
}

/* ------------------------------------------------------------------ running tmux */

export class TmuxError extends Error {
  /** The server, session or pane is not there. */
  readonly gone: boolean;
  constructor(message: string) {
    super(message);
    this.name = 'TmuxError';
    this.gone = /no server running|error connecting to|can't find (session|pane|window)|no current (session|target)/i.test(message);
  }
}

interface Client {
  program: string;
  socket: string;
}

const TMUX_MISSING = `tmux was not found on PATH: --backend tmux needs tmux ${MIN_TMUX_VERSION} or later (or use --backend pty)`;

function clientOf(opts: TmuxOptions = {}): Client {
  const program = opts.tmux ?? which.sync('tmux', { nothrow: true });
  if (!program) throw new TmuxError(TMUX_MISSING);
  return { program, socket: opts.socket ?? DEFAULT_TMUX_SOCKET };
}

/** Our environment for tmux clients: never inside the user's own tmux. */
function clientEnv(path?: { value: string | undefined }): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  delete env.TMUX;
  delete env.TMUX_PANE;
  if (path) {
    if (path.value === undefined) delete env.PATH;
    else env.PATH = path.value;
  }
  return env;
}

function globalArgs(c: Client): string[] {
  // -f /dev/null: a user's ~/.tmux.conf never configures the private server.
  return ['-u', '-f', '/dev/null', '-L', c.socket];
}

function errorText(err: unknown): string {
  const e = err as { stderr?: string | Buffer; message?: string };
  const stderr = e.stderr ? String(e.stderr).trim() : '';
  return stderr || e.message || String(err);
}

function tmux(c: Client, commands: readonly (readonly string[])[], env?: Record<string, string>): string {
  return tmuxRaw(c, tmuxChain(commands), env);
}

function tmuxRaw(c: Client, args: string[], env?: Record<string, string>): string {
  try {
    return execFileSync(c.program, [...globalArgs(c), ...args], {
      encoding: 'utf8', env: env ?? clientEnv(), stdio: ['ignore', 'pipe', 'pipe'], timeout: CALL_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    throw new TmuxError(errorText(err));
  }
}

function tmuxAsync(c: Client, commands: readonly (readonly string[])[]): Promise<{ out: string } | { err: TmuxError }> {
  return new Promise((done) => {
    execFile(c.program, [...globalArgs(c), ...tmuxChain(commands)], { encoding: 'utf8', env: clientEnv(), timeout: CALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) done({ err: new TmuxError(String(stderr).trim() || err.message) });
      else done({ out: stdout });
    });
  });
}

/** The environment and default-shell a new pane would start from. */
function serverEnv(c: Client, spawnEnv: Record<string, string>): { global: Map<string, string | null>; defaultShell: string | undefined } {
  try {
    const out = tmux(c, [['show-options', '-gv', 'default-shell'], ['show-environment', '-gs']]);
    const nl = out.indexOf('\n');
    return { defaultShell: out.slice(0, nl), global: parseShowEnvironment(out.slice(nl + 1)) };
  } catch (err) {
    if (!(err instanceof TmuxError && err.gone)) throw err;
    // No server yet: new-session starts it with the spawning client's environment. Its
    // default-shell is unknown (tmux falls back from $SHELL to the passwd entry), so the
    // plan always sets SHELL itself.
    return { global: new Map(Object.entries(spawnEnv)), defaultShell: undefined };
  }
}

/* ------------------------------------------------------------------ sessions */

interface PaneState {
  paneId: string;
  pid: number;
  dead: boolean;
  /** '' while tmux has no status yet. */
  status: string;
  signal: string;
  serverPid: number;
  height: number;
}

const PANE_FORMAT = '#{pane_id}\t#{pane_pid}\t#{pane_dead}\t#{pane_dead_status}\t#{pane_dead_signal}\t#{pid}\t#{pane_height}\t#{session_name}';

function parsePanes(out: string): (PaneState & { session: string })[] {
  const panes: (PaneState & { session: string })[] = [];
  for (const line of out.split('\n')) {
    const f = line.split('\t');
    if (f.length < 8 || !f[0]!.startsWith('%')) continue;
    panes.push({
      paneId: f[0]!, pid: Number(f[1]), dead: f[2] === '1', status: f[3]!, signal: f[4]!, serverPid: Number(f[5]),
      height: Number(f[6]), session: f.slice(7).join('\t'),
    });
  }
  return panes;
}

/** The exit a dead pane reports, once tmux has its status. */
function exitOf(p: PaneState): SessionExit | undefined {
  if (!p.dead) return undefined;
  if (p.signal !== '') return { exitCode: 0, signal: Number(p.signal) };
  if (p.status !== '') return { exitCode: Number(p.status) };
  return undefined;
}

/** Whether `pid` has exited and waits to be reaped (Linux /proc). */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/**
 * tmux 3.3a can miss a pane's SIGCHLD (see the top); another one makes it reap. It can
 * also leave a pane alive whose agent is already a zombie (seen with Claude Code's /exit):
 * the same nudge makes it see the exit.
 */
function nudge(p: PaneState): void {
  if (!(p.serverPid > 0)) return;
  const lost = p.dead ? !exitOf(p) : isZombie(p.pid);
  if (!lost) return;
  try {
    process.kill(p.serverPid, 'SIGCHLD');
  } catch { /* server gone: the next poll sees it */ }
}

/** The panes of session `name` (first window's first pane first), or undefined if there is none. */
function panesOf(c: Client, name: string): PaneState[] | undefined {
  try {
    const panes = parsePanes(tmux(c, [['list-panes', '-s', '-t', `=${name}:`, '-F', PANE_FORMAT]]));
    return panes.length ? panes : undefined;
  } catch (err) {
    if (err instanceof TmuxError && err.gone) return undefined;
    throw err;
  }
}

/** One exit poll per tmux server, for all of its sessions watched by this process. */
class ExitPoller {
  private static readonly all = new Map<string, ExitPoller>();
  private readonly watched = new Map<TmuxSession, number>();
  private ticks = 0;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  private constructor(private readonly client: Client) {}

  static of(c: Client): ExitPoller {
    const key = `${c.program}\0${c.socket}`;
    let p = ExitPoller.all.get(key);
    if (!p) ExitPoller.all.set(key, (p = new ExitPoller(c)));
    return p;
  }

  add(s: TmuxSession): void {
    this.watched.set(s, this.ticks);
    this.arm();
  }

  remove(s: TmuxSession): void {
    this.watched.delete(s);
    if (this.watched.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private arm(): void {
    if (this.timer || this.busy || this.watched.size === 0) return;
    this.timer = setTimeout(() => void this.tick(), EXIT_POLL_MS);
    // Agents in tmux do not depend on this process: polling alone does not keep it alive.
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    this.busy = true;
    const tick = ++this.ticks;
    const r = await tmuxAsync(this.client, [['list-panes', '-a', '-F', PANE_FORMAT]]);
    this.busy = false;
    // A session added while the call ran may be missing from its answer: judged next time.
    const judged = [...this.watched].filter(([, since]) => since < tick).map(([s]) => s);
    if ('out' in r) {
      const panes = new Map(parsePanes(r.out).map((p) => [p.paneId, p]));
      for (const s of judged) s.observe(panes.get(s.paneId));
    } else if (r.err.gone) {
      for (const s of judged) s.observe(undefined);
    } // else: a failed call (timeout, fork): try again
    this.arm();
  }
}

/** A named pipe fed by `pipe-pane`: the pane's raw output while someone listens. */
class OutputPipe {
  private readonly dir: string;
  private readonly socket: net.Socket;

  constructor(private readonly client: Client, private readonly paneId: string, onData: (data: string) => void) {
    this.dir = mkdtempSync(join(tmpdir(), 'autodeck-tmux-'));
    const fifo = join(this.dir, 'output');
    let fd: number | undefined;
    try {
      execFileSync('mkfifo', ['-m', '600', fifo], { stdio: 'ignore' });
      // Read-write so that opening never blocks and no writer's exit ends the stream.
      fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
      this.socket = new net.Socket({ fd, readable: true, writable: false });
      this.socket.setEncoding('utf8');
      this.socket.on('data', (d: string) => onData(d));
      this.socket.on('error', () => { /* closed under us: no more output */ });
      this.socket.unref();
      // Run by /bin/sh, expanded as a format first. Once we are gone, cat dies of SIGPIPE.
      tmux(this.client, [['pipe-pane', '-t', paneId, escapeTmuxFormat(`exec cat > ${shQuote(fifo)}`)]]);
    } catch (err) {
      if (fd !== undefined) {
        try {
          closeSync(fd);
        } catch { /* owned by the socket */ }
      }
      rmSync(this.dir, { recursive: true, force: true });
      throw err;
    }
  }

  close(): void {
    try {
      tmux(this.client, [['pipe-pane', '-t', this.paneId]]);
    } catch { /* pane gone */ }
    this.socket.destroy();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

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
   * which resize() had fixed (resize-window sets window-size to manual).
   */
  attachCommand(detachKey?: string): { file: string; args: string[]; env: Record<string, string> } {
    const commands = [
      ...(detachKey ? [['bind-key', '-n', detachKey, 'detach-client']] : []),
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

/** A SessionFactory for the tmux backend, on `opts.socket` (default `autodeck`). */
export function tmuxFactory(opts: TmuxOptions = {}): SessionFactory {
  return (spec) => spawnTmuxSession(spec, opts);
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

export function tmuxSessionExists(name: string, opts: TmuxOptions = {}): boolean {
  try {
    tmux(clientOf(opts), [['has-session', '-t', `=${name}`]]);
    return true;
  } catch {
    return false;
  }
}

export interface TmuxSessionInfo {
  name: string;
  /** The first pane's process. */
  pid: number;
  /** Whether that pane's program has exited (the session stays: remain-on-exit). */
  dead: boolean;
  exit?: SessionExit;
}

/** The sessions on the server (none when it is not running). */
export function listTmuxSessions(opts: TmuxOptions = {}): TmuxSessionInfo[] {
  let out: string;
  try {
    out = tmux(clientOf(opts), [['list-panes', '-a', '-F', PANE_FORMAT]]);
  } catch (err) {
    if (err instanceof TmuxError && err.gone) return [];
    throw err;
  }
  const sessions = new Map<string, TmuxSessionInfo>();
  for (const p of parsePanes(out)) {
    if (sessions.has(p.session)) continue;
    const exit = exitOf(p);
    sessions.set(p.session, { name: p.session, pid: p.pid, dead: p.dead, ...(exit ? { exit } : {}) });
  }
  return [...sessions.values()];
}

/** Where tmux puts a `-L` socket when the server does not say. */
function defaultSocketPath(socket: string): string | undefined {
  const uid = process.getuid?.();
  return uid === undefined ? undefined : join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`, socket);
}

/** Ends the whole private server (every session on the socket) and removes its socket file, which tmux leaves. */
export function killTmuxServer(opts: TmuxOptions = {}): void {
  const c = clientOf(opts);
  let path: string | undefined;
  try {
    path = tmux(c, [['display-message', '-p', '#{socket_path}']]).trim() || undefined;
  } catch { /* not running */ }
  try {
    tmux(c, [['kill-server']]);
  } catch { /* not running */ }
  path ??= defaultSocketPath(c.socket);
  try {
    if (path && lstatSync(path).isSocket()) rmSync(path, { force: true });
  } catch { /* no file */ }
}

/** The command a person runs (or the dashboard hands the terminal to) to attach. */
export function tmuxAttachArgv(name: string, opts: TmuxOptions = {}): string[] {
  const c = clientOf(opts);
  return [c.program, '-u', '-L', c.socket, 'attach-session', '-t', escapeTmuxArg(`=${name}`)];
}

export type TmuxCheck = { ok: true; program: string; version: string } | { ok: false; message: string };

/** Whether tmux is here and new enough; `message` is one line for the user. */
export function tmuxAvailable(opts: TmuxOptions = {}): TmuxCheck {
  const program = opts.tmux ?? which.sync('tmux', { nothrow: true });
  if (!program) return { ok: false, message: TMUX_MISSING };
  let out: string;
  try {
    out = execFileSync(program, ['-V'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: CALL_TIMEOUT_MS }).trim();
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : errorText(err).split('\n')[0];
    return { ok: false, message: `${program}: ${why}: --backend tmux needs tmux ${MIN_TMUX_VERSION} or later (or use --backend pty)` };
  }
  const v = parseTmuxVersion(out);
  const [minMajor, minMinor] = MIN_TMUX_VERSION.split('.').map(Number) as [number, number];
  if (v && (v[0] < minMajor || (v[0] === minMajor && v[1] < minMinor))) {
    return { ok: false, message: `${out} is too old: --backend tmux needs tmux ${MIN_TMUX_VERSION} or later (or use --backend pty)` };
  }
  return { ok: true, program, version: out };
}
