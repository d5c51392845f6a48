import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from './cli.js';
import { waitFor } from './wait.js';
import { runTmux } from './tmux.js';
import type { Workspace } from './workspace.js';

/**
 * The dashboard (`autodeck` with a terminal) in a pane of its own private tmux server (no
 * config file, no scrollback), driven as a person would: keys through `send-keys`, the
 * screen through `capture-pane`. The program runs under `sh -c` only to write its exit
 * code to a file; every path reaches it as its own argv word, nothing is quoted by hand.
 */
export class DashboardPane {
  /** The pane's program (the `sh` wrapper) and, once seen, the dashboard under it. */
  private pids: number[] = [];
  /** The server's socket file: tmux 3.3 leaves it behind after kill-server. */
  private socketPath: string | undefined;

  private constructor(
    readonly socket: string,
    readonly env: Record<string, string>,
    readonly exitFile: string,
  ) {}

  /**
   * The environment of a dashboard in a workspace, set explicitly: nothing of the test
   * runner's environment leaks in (no TMUX, no NO_COLOR, no AUTODECK_*), so CI without
   * $SHELL or a terminal sees the same thing as a developer inside tmux.
   */
  static envFor(ws: Workspace, extra: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: ws.env.HOME!,
      XDG_STATE_HOME: ws.env.XDG_STATE_HOME!,
      XDG_CONFIG_HOME: ws.env.XDG_CONFIG_HOME!,
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      ...extra,
    };
  }

  /** Starts `autodeck ARGS...` in a cols x rows pane; `name` makes the socket and the exit file unique. */
  static async start(opts: { ws: Workspace; args: string[]; env: Record<string, string>; name: string; cols?: number; rows?: number; socket?: string; session?: string; stderrFile?: string }): Promise<DashboardPane> {
    const socket = opts.socket ?? `adt-dash-${opts.name}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const session = opts.session ?? 'main';
    const exitFile = join(opts.ws.dir, `exit-${session}-${Math.random().toString(36).slice(2, 8)}`);
    const pane = new DashboardPane(socket, opts.env, exitFile);
    pane.session = session;
    // stderrFile: the program's stderr goes there, not to the pane (it outlives a hangup)
    const argv = opts.stderrFile
      ? ['/bin/sh', '-c', 'f=$1; e=$2; shift 2; "$@" 2>"$e"; echo $? > "$f"', 'sh', exitFile, opts.stderrFile, process.execPath, BIN, ...opts.args]
      : ['/bin/sh', '-c', 'f=$1; shift; "$@"; echo $? > "$f"', 'sh', exitFile, process.execPath, BIN, ...opts.args];
    await pane.tmux([
      'start-server', ';',
      'set-option', '-g', 'remain-on-exit', 'on', ';',
      'set-option', '-g', 'history-limit', '0', ';',
      'set-option', '-g', 'default-terminal', 'xterm-256color', ';',
      'set-option', '-g', 'status', 'off', ';',
      'new-session', '-d', '-s', session, '-x', String(opts.cols ?? 120), '-y', String(opts.rows ?? 40), '-c', opts.ws.dir, '--', ...argv,
    ]);
    pane.socketPath = (await pane.tmux(['display-message', '-p', '#{socket_path}'])).trim() || undefined;
    await pane.notePids();
    return pane;
  }

  /** Another dashboard in a new session of the same server (a second launch), `env` added to the server's. */
  async startAnother(opts: { ws: Workspace; args: string[]; session: string; cols?: number; rows?: number; env?: Record<string, string> }): Promise<DashboardPane> {
    const exitFile = join(opts.ws.dir, `exit-${opts.session}-${Math.random().toString(36).slice(2, 8)}`);
    const pane = new DashboardPane(this.socket, this.env, exitFile);
    pane.session = opts.session;
    const argv = ['/bin/sh', '-c', 'f=$1; shift; "$@"; echo $? > "$f"', 'sh', exitFile, process.execPath, BIN, ...opts.args];
    const env = Object.entries(opts.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    await pane.tmux(['new-session', '-d', '-s', opts.session, '-x', String(opts.cols ?? 120), '-y', String(opts.rows ?? 40), '-c', opts.ws.dir, ...env, '--', ...argv]);
    await pane.notePids();
    return pane;
  }

  session = 'main';

  private async notePids(): Promise<void> {
    const pid = Number((await this.tmux(['display-message', '-p', '-t', this.session, '#{pane_pid}'])).trim());
    if (!pid) return;
    this.pids.push(pid);
    // The dashboard itself, the wrapper's one child, once it has been forked.
    try {
      await waitFor(() => {
        const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
        return kids ? kids.split(/\s+/).map(Number) : undefined;
      }, 'the dashboard process', 5_000, 20).then((kids) => this.pids.push(...kids));
    } catch { /* not Linux, or already gone: kill() then relies on tmux alone */ }
  }

  tmux(args: string[]): Promise<string> {
    return runTmux(this.socket, this.env, args);
  }

  /** Literal text, as typed. */
  type(text: string): Promise<string> {
    return this.tmux(['send-keys', '-t', this.session, '-l', '--', text]);
  }

  /** tmux key names (Enter, BSpace, C-q, j, ?), each sent on its own. */
  async keys(...names: string[]): Promise<void> {
    for (const [i, name] of names.entries()) {
      if (i > 0) await new Promise((r) => setTimeout(r, 60));
      await this.tmux(['send-keys', '-t', this.session, name]);
    }
  }

  /** The visible screen as plain text, one string per line (exactly the pane's height). */
  async lines(): Promise<string[]> {
    const out = await this.tmux(['capture-pane', '-p', '-t', this.session]);
    return out.replace(/\n$/, '').split('\n');
  }

  async screen(): Promise<string> {
    return (await this.lines()).join('\n');
  }

  /** The visible screen with its attributes as SGR sequences (`capture-pane -e`). */
  screenWithAttributes(): Promise<string> {
    return this.tmux(['capture-pane', '-p', '-e', '-t', this.session]);
  }

  async size(): Promise<{ cols: number; rows: number }> {
    const [cols, rows] = (await this.tmux(['display-message', '-p', '-t', this.session, '#{pane_width} #{pane_height}'])).trim().split(' ').map(Number);
    return { cols: cols!, rows: rows! };
  }

  resize(cols: number, rows?: number): Promise<string> {
    return this.tmux(['resize-window', '-t', this.session, '-x', String(cols), ...(rows ? ['-y', String(rows)] : [])]);
  }

  /** Polls the screen until `predicate` holds; the error shows the last screen. */
  async waitScreen(predicate: (screen: string, lines: string[]) => boolean, what: string, timeoutMs = 30_000): Promise<string> {
    let last = '';
    try {
      await waitFor(async () => {
        const lines = await this.lines();
        last = lines.join('\n');
        return predicate(last, lines);
      }, what, timeoutMs, 100);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- last screen ---\n${last}\n---`);
    }
    return last;
  }

  /** The dashboard's exit code, once it has exited (from the wrapper's file). */
  exitCode(): number | undefined {
    if (!existsSync(this.exitFile)) return undefined;
    const text = readFileSync(this.exitFile, 'utf8').trim();
    return text === '' ? undefined : Number(text);
  }

  /** `#{pane_dead}`: the pane's program (the wrapper) has ended. */
  async paneDead(): Promise<boolean> {
    return (await this.tmux(['display-message', '-p', '-t', this.session, '#{pane_dead}'])).trim() === '1';
  }

  /** Kills the server (a hangup for the dashboard) and waits, bounded, for its processes; SIGKILL last. */
  async kill(): Promise<void> {
    try {
      execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', 'kill-server'], { env: this.env, stdio: 'ignore', timeout: 10_000 });
    } catch { /* already gone */ }
    if (this.socketPath) rmSync(this.socketPath, { force: true });
    await killAll(this.pids);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Waits up to 10 s for these processes to end (the dashboard suspends its loops on a hangup), then SIGKILL. */
export async function killAll(pids: number[]): Promise<void> {
  for (let i = 0; i < 100 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
  for (const pid of pids.filter(alive)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch { /* gone meanwhile */ }
  }
}
