import { lstatSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { childProcess, which } from '../lazy.js';
import type { SessionExit } from './session.js';
import { escapeTmuxArg, parseShowEnvironment, parseTmuxVersion, tmuxChain } from './tmuxCommand.js';

/**
 * Running tmux on autodeck's private server: one call (sync or not) with our global flags
 * and a clean client environment, the panes it reports, and the server-wide questions
 * (is tmux here, which sessions exist, end the server). The sessions themselves are in tmux.ts.
 */

export const DEFAULT_TMUX_SOCKET = 'autodeck';
/** `remain-on-exit-format` and `pane_dead_signal` are 3.3's. */
export const MIN_TMUX_VERSION = '3.3';
const CALL_TIMEOUT_MS = 10_000;

export interface TmuxOptions {
  /** The private server's socket name (`tmux -L`); default `autodeck`. */
  socket?: string;
  /** The tmux program; default `tmux` on PATH. */
  tmux?: string;
}

export class TmuxError extends Error {
  /** The server, session or pane is not there. */
  readonly gone: boolean;
  constructor(message: string) {
    super(message);
    this.name = 'TmuxError';
    this.gone = /no server running|error connecting to|can't find (session|pane|window)|no current (session|target)/i.test(message);
  }
}

export interface Client {
  program: string;
  socket: string;
}

const TMUX_MISSING = `tmux was not found on PATH: --backend tmux needs tmux ${MIN_TMUX_VERSION} or later (or use --backend pty)`;

export function clientOf(opts: TmuxOptions = {}): Client {
  const program = opts.tmux ?? which().sync('tmux', { nothrow: true });
  if (!program) throw new TmuxError(TMUX_MISSING);
  return { program, socket: opts.socket ?? DEFAULT_TMUX_SOCKET };
}

/** Our environment for tmux clients: never inside the user's own tmux. */
export function clientEnv(path?: { value: string | undefined }): Record<string, string> {
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

export function globalArgs(c: Client): string[] {
  // -f /dev/null: a user's ~/.tmux.conf never configures the private server.
  return ['-u', '-f', '/dev/null', '-L', c.socket];
}

function errorText(err: unknown): string {
  const e = err as { stderr?: string | Buffer; message?: string };
  const stderr = e.stderr ? String(e.stderr).trim() : '';
  return stderr || e.message || String(err);
}

export function tmux(c: Client, commands: readonly (readonly string[])[], env?: Record<string, string>): string {
  return tmuxRaw(c, tmuxChain(commands), env);
}

export function tmuxRaw(c: Client, args: string[], env?: Record<string, string>): string {
  try {
    return childProcess().execFileSync(c.program, [...globalArgs(c), ...args], {
      encoding: 'utf8', env: env ?? clientEnv(), stdio: ['ignore', 'pipe', 'pipe'], timeout: CALL_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    throw new TmuxError(errorText(err));
  }
}

export function tmuxAsync(c: Client, commands: readonly (readonly string[])[]): Promise<{ out: string } | { err: TmuxError }> {
  return new Promise((done) => {
    childProcess().execFile(c.program, [...globalArgs(c), ...tmuxChain(commands)], { encoding: 'utf8', env: clientEnv(), timeout: CALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) done({ err: new TmuxError(String(stderr).trim() || err.message) });
      else done({ out: stdout });
    });
  });
}

/** The environment and default-shell a new pane would start from. */
export function serverEnv(c: Client, spawnEnv: Record<string, string>): { global: Map<string, string | null>; defaultShell: string | undefined } {
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

export interface PaneState {
  paneId: string;
  pid: number;
  dead: boolean;
  /** '' while tmux has no status yet. */
  status: string;
  signal: string;
  serverPid: number;
  height: number;
}

export const PANE_FORMAT = '#{pane_id}\t#{pane_pid}\t#{pane_dead}\t#{pane_dead_status}\t#{pane_dead_signal}\t#{pid}\t#{pane_height}\t#{session_name}';

export function parsePanes(out: string): (PaneState & { session: string })[] {
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
export function exitOf(p: PaneState): SessionExit | undefined {
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
 * tmux 3.3a can miss a pane's SIGCHLD (see the top of tmux.ts); another one makes it reap. It can
 * also leave a pane alive whose agent is already a zombie (seen with Claude Code's /exit):
 * the same nudge makes it see the exit.
 */
export function nudge(p: PaneState): void {
  if (!(p.serverPid > 0)) return;
  const lost = p.dead ? !exitOf(p) : isZombie(p.pid);
  if (!lost) return;
  try {
    process.kill(p.serverPid, 'SIGCHLD');
  } catch { /* server gone: the next poll sees it */ }
}

/** The panes of session `name` (first window's first pane first), or undefined if there is none. */
export function panesOf(c: Client, name: string): PaneState[] | undefined {
  try {
    const panes = parsePanes(tmux(c, [['list-panes', '-s', '-t', `=${name}:`, '-F', PANE_FORMAT]]));
    return panes.length ? panes : undefined;
  } catch (err) {
    if (err instanceof TmuxError && err.gone) return undefined;
    throw err;
  }
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
  const program = opts.tmux ?? which().sync('tmux', { nothrow: true });
  if (!program) return { ok: false, message: TMUX_MISSING };
  let out: string;
  try {
    out = childProcess().execFileSync(program, ['-V'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: CALL_TIMEOUT_MS }).trim();
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
