import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { COLS, ROWS, type Seen } from './dashboard-term.js';
import { alive } from './proc.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** tmux 3.0 or newer on PATH (new-session passes argv without a shell from 3.0). */
export function tmuxUsable(): { ok: true; version: string } | { ok: false; why: string } {
  const r = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return { ok: false, why: 'tmux is not installed' };
  const version = r.stdout.trim();
  const m = /(\d+)\.(\d+)/.exec(version);
  if (!m || Number(m[1]) < 3) return { ok: false, why: `${version} is older than 3.0` };
  return { ok: true, version };
}

/**
 * The cross-check observer: the dashboard in a detached tmux session (private server,
 * 120x40, no user config), its screen read with `tmux capture-pane`, keys sent with
 * `send-keys`. Slower to poll than the emulator (one process per look) but independent
 * of it.
 */
export class TmuxDashboard {
  readonly socket: string;
  readonly startedAt: number;
  readonly pid: number;
  /** The server's socket file: tmux leaves it behind when its server ends. */
  private readonly socketPath: string;
  private killed = false;

  /** `cols`/`rows`: the pane's size (default the emulator's 120x40); `tag` tells two servers of one bench apart. */
  constructor(file: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; confDir: string; cols?: number; rows?: number; tag?: string }) {
    this.socket = `autodeck-deckbench-${process.pid}${opts.tag ? `-${opts.tag}` : ''}`;
    this.socketPath = join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, this.socket);
    const conf = join(opts.confDir, 'tmux.conf');
    writeFileSync(conf, 'set -g default-terminal "tmux-256color"\nset -g status off\nset -g remain-on-exit off\n');
    this.startedAt = performance.now();
    execFileSync('tmux', ['-L', this.socket, '-f', conf, 'new-session', '-d', '-s', 'deck', '-x', String(opts.cols ?? COLS), '-y', String(opts.rows ?? ROWS), '-c', opts.cwd, '--', file, ...args],
      { env: opts.env, stdio: ['ignore', 'ignore', 'pipe'] });
    this.pid = Number(this.tmux(['display-message', '-p', '-t', 'deck', '#{pane_pid}']).trim());
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  }

  /**
   * Copies every byte the program writes to its pane into the file named by the
   * environment variable `fileVar` (of the server's environment: no path in the command).
   */
  pipeTo(fileVar: string): void {
    this.tmux(['pipe-pane', '-o', '-t', 'deck', `exec cat >> "$${fileVar}"`]);
  }

  get hasExited(): boolean {
    return !alive(this.pid);
  }

  screen(): string[] {
    try {
      return this.tmux(['capture-pane', '-p', '-t', 'deck']).split('\n');
    } catch {
      return [];
    }
  }

  screenText(): string {
    return this.screen().join('\n');
  }

  rowLine(name: string): string | undefined {
    const re = new RegExp(`^[› ] ${name.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}\\s`);
    return this.screen().find((l) => re.test(l));
  }

  /** Keys as literal text (`-l`), or a tmux key name (`Enter`). */
  write(data: string): void {
    try {
      if (data === '\r') this.tmux(['send-keys', '-t', 'deck', 'Enter']);
      else this.tmux(['send-keys', '-t', 'deck', '-l', data]);
    } catch { /* the session is gone */ }
  }

  /** Polls the pane back to back (each look is one `tmux capture-pane`). */
  async waitFor<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<Seen<T>> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const value = check();
      const at = performance.now();
      if (value !== undefined) return { value, at };
      if (this.hasExited) throw new Error(`the dashboard in tmux ended while waiting for ${what}`);
      if (at > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (tmux); the pane:\n${this.screenText().trimEnd()}`);
      await sleep(1);
    }
  }

  waitText(text: string, timeoutMs: number): Promise<Seen<true>> {
    return this.waitFor(() => (this.screenText().includes(text) ? true : undefined), timeoutMs, JSON.stringify(text));
  }

  async waitExit(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (this.hasExited) return true;
      await sleep(50);
    }
    return this.hasExited;
  }

  /** Kills the dashboard (by id) if it still runs, then the private tmux server. */
  kill(): void {
    if (this.killed) return;
    this.killed = true;
    if (alive(this.pid)) {
      try {
        process.kill(this.pid, 'SIGKILL');
      } catch { /* gone */ }
    }
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore' });
    rmSync(this.socketPath, { force: true });
  }
}
