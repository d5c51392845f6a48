import { performance } from 'node:perf_hooks';
import pty from 'node-pty';
import xtermHeadless from '@xterm/headless';
import { alive } from './proc.js';

const { Terminal } = xtermHeadless;

/** Synchronized output begins (DEC mode 2026): Ink writes it before each frame. */
const BEGIN_FRAME = Buffer.from('\x1b[?2026h');

export const COLS = 120;
export const ROWS = 40;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A checked condition, with the moment it first held (performance.now()). */
export interface Seen<T> {
  value: T;
  at: number;
}

/**
 * The dashboard as a person sees it: `node bin/autodeck.js ...` in a real pseudo-terminal
 * (120x40, TERM=xterm-256color), every byte it writes counted and fed into a headless
 * xterm, whose screen the bench reads. The terminal's own answers (to status queries)
 * go back to the dashboard, as a real terminal's would.
 */
export class DashboardTerm {
  /** performance.now() just before the spawn. */
  readonly spawnedAt: number;
  readonly pid: number;
  /** Bytes read from the pty so far. */
  bytes = 0;
  /** Chunks (reads) from the pty so far. */
  chunks = 0;
  /** Frames drawn so far: Ink opens each with the synchronized-output mark. */
  frames = 0;
  /** performance.now() of the first byte read, if any. */
  firstByteAt: number | undefined;
  /** Bumped after each chunk the emulator has parsed. */
  version = 0;
  private readonly proc: pty.IPty;
  private readonly term: InstanceType<typeof Terminal>;
  private readonly parsedListeners = new Set<() => void>();
  private exitInfo: { exitCode: number; signal?: number | undefined } | undefined;
  readonly exited: Promise<void>;
  private disposed = false;

  constructor(file: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }) {
    this.term = new Terminal({ cols: COLS, rows: ROWS, scrollback: 0, allowProposedApi: true });
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.env)) if (v !== undefined) env[k] = v;
    env.TERM = 'xterm-256color';
    let resolveExit!: () => void;
    this.exited = new Promise((r) => (resolveExit = r));
    this.spawnedAt = performance.now();
    // encoding null: raw Buffers, so the byte count is what a link would carry.
    this.proc = pty.spawn(file, args, { name: 'xterm-256color', cols: COLS, rows: ROWS, cwd: opts.cwd, env, encoding: null });
    this.pid = this.proc.pid;
    this.proc.onData((data: string | Buffer) => {
      const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      this.firstByteAt ??= performance.now();
      this.bytes += chunk.length;
      this.chunks++;
      for (let at = chunk.indexOf(BEGIN_FRAME); at >= 0; at = chunk.indexOf(BEGIN_FRAME, at + 1)) this.frames++;
      if (this.disposed) return;
      this.term.write(chunk, () => {
        this.version++;
        for (const l of [...this.parsedListeners]) l();
      });
    });
    this.term.onData((reply) => this.write(reply));
    this.proc.onExit((e) => {
      this.exitInfo = e;
      resolveExit();
    });
  }

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  get exitDescription(): string {
    if (!this.exitInfo) return 'running';
    return this.exitInfo.signal ? `signal ${this.exitInfo.signal}` : `exit code ${this.exitInfo.exitCode}`;
  }

  /** Types into the dashboard. */
  write(data: string): void {
    if (this.hasExited || this.disposed) return;
    try {
      this.proc.write(data);
    } catch { /* exited between the check and the write */ }
  }

  /** The screen's lines as text, right-trimmed. */
  screen(): string[] {
    const buf = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++) out.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '');
    return out;
  }

  screenText(): string {
    return this.screen().join('\n');
  }

  /** The table line of module `name` (a selection mark or two spaces, then the name), if on screen. */
  rowLine(name: string): string | undefined {
    const re = new RegExp(`^[› ] ${name.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}\\s`);
    return this.screen().find((l) => re.test(l));
  }

  /**
   * Waits until `check` returns something other than undefined, looking after every
   * chunk the emulator parsed (so the moment is when the screen changed) and every 20 ms.
   */
  waitFor<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<Seen<T>> {
    return new Promise<Seen<T>>((resolve, reject) => {
      let done = false;
      const finish = (fn: () => void): void => {
        if (done) return;
        done = true;
        this.parsedListeners.delete(look);
        clearInterval(poll);
        clearTimeout(timer);
        fn();
      };
      const look = (): void => {
        if (done) return;
        let value: T | undefined;
        try {
          value = check();
        } catch (err) {
          finish(() => reject(err));
          return;
        }
        const at = performance.now();
        if (value !== undefined) finish(() => resolve({ value, at }));
      };
      const poll = setInterval(() => {
        look();
        if (!done && this.hasExited) {
          finish(() => reject(new Error(`the dashboard ended (${this.exitDescription}) while waiting for ${what}; its screen:\n${this.screenText().trimEnd()}`)));
        }
      }, 20);
      const timer = setTimeout(() => {
        finish(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the screen:\n${this.screenText().trimEnd()}`)));
      }, timeoutMs);
      this.parsedListeners.add(look);
      look();
    });
  }

  /** Waits for `text` anywhere on the screen. */
  waitText(text: string, timeoutMs: number): Promise<Seen<true>> {
    return this.waitFor(() => (this.screenText().includes(text) ? true : undefined), timeoutMs, JSON.stringify(text));
  }

  /** Waits until no byte came for `quietMs` (at most `timeoutMs`). */
  async settle(quietMs: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = this.bytes;
    let since = Date.now();
    while (Date.now() < deadline) {
      await sleep(10);
      if (this.bytes !== last) {
        last = this.bytes;
        since = Date.now();
      } else if (Date.now() - since >= quietMs) return;
    }
  }

  /** Waits for the process to end, up to `ms`; true if it did. */
  async waitExit(ms: number): Promise<boolean> {
    if (this.hasExited) return true;
    return Promise.race([this.exited.then(() => true), sleep(ms).then(() => false)]);
  }

  /** Last resort: SIGKILL by id. */
  kill(): void {
    if (!this.hasExited && alive(this.pid)) {
      try {
        process.kill(this.pid, 'SIGKILL');
      } catch { /* gone */ }
    }
  }

  /** Frees the emulator and the pty (the process must have ended or been killed). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.parsedListeners.clear();
    this.kill();
    this.term.dispose();
  }
}
