import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * A program in its own tmux server (private socket, no config), for capturing the
 * screens of real agents as plain text, the way `tmux capture-pane -p` shows them.
 */
export class TmuxPane {
  private constructor(
    readonly socket: string,
    private readonly env: Record<string, string>,
  ) {}

  static async start(opts: { argv: string[]; cwd: string; env: Record<string, string>; cols?: number; rows?: number; socket?: string }): Promise<TmuxPane> {
    const socket = opts.socket ?? `autodeck-cap-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const pane = new TmuxPane(socket, opts.env);
    // The server inherits only `env`; the pane stays after the program exits, to see its last screen.
    await pane.tmux([
      'start-server', ';',
      'set-option', '-g', 'remain-on-exit', 'on', ';',
      'set-option', '-g', 'history-limit', '5000', ';',
      'set-option', '-g', 'focus-events', 'on', ';',
      'new-session', '-d', '-s', 'main', '-x', String(opts.cols ?? 120), '-y', String(opts.rows ?? 40), '-c', opts.cwd, '--', ...opts.argv,
    ]);
    return pane;
  }

  tmux(args: string[]): Promise<string> {
    return runTmux(this.socket, this.env, args);
  }

  /** Literal text, as typed (no key-name lookup). */
  type(text: string): Promise<string> {
    return this.tmux(['send-keys', '-t', 'main', '-l', '--', text]);
  }

  /** tmux key names: Enter, Escape, C-c, Down, … */
  keys(...names: string[]): Promise<string> {
    return this.tmux(['send-keys', '-t', 'main', ...names]);
  }

  /** The visible screen, plain text, trailing spaces kept off. */
  async capture(): Promise<string> {
    return this.tmux(['capture-pane', '-p', '-t', 'main']);
  }

  /**
   * Set once the program has exited: `status` from tmux when it has marked the pane
   * dead. Seen here (tmux 3.3a): Claude Code exited (a zombie under the tmux server)
   * but tmux did not mark the pane dead for over a minute, so a zombie counts as exited,
   * with no status.
   */
  async exited(): Promise<{ status?: number } | undefined> {
    const out = (await this.tmux(['display-message', '-p', '-t', 'main', '#{pane_dead} #{pane_dead_status} #{pane_dead_signal} #{pane_pid}'])).trim();
    const [dead, status, signal, pid] = out.split(' ');
    if (dead === '1') {
      // tmux may mark the pane dead a moment before it has the status
      if (status) return { status: Number(status) };
      if (signal) return { status: 128 + Number(signal) };
    }
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return {};
    } catch { /* gone, or not Linux */ }
    return undefined;
  }

  /** Kills the server and waits (bounded) until the program is gone, SIGKILL last. */
  async kill(): Promise<void> {
    let pid: number | undefined;
    try {
      pid = Number((await this.tmux(['display-message', '-p', '-t', 'main', '#{pane_pid}'])).trim()) || undefined;
    } catch { /* server gone */ }
    try {
      execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', 'kill-server'], { env: this.env, stdio: 'ignore', timeout: 10_000 });
    } catch { /* already gone */ }
    if (!pid) return;
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    if (alive()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch { /* gone meanwhile */ }
    }
  }
}

/** One tmux command on a private server (no config), bounded in time; its output. */
export function runTmux(socket: string, env: Record<string, string>, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env, timeout: 10_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`tmux ${args.join(' ')}: ${err.message} ${String(stderr)}`));
      else resolve(String(stdout));
    });
  });
}

/** This process's environment without tmux's own variables: a program started from here is not "inside tmux". */
export function envWithoutTmux(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}
