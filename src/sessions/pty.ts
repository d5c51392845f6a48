import pty from 'node-pty';
import xtermHeadless from '@xterm/headless';
import type { IBuffer } from '@xterm/headless';
import xtermSerialize from '@xterm/addon-serialize';
import type { Session, SessionExit, SpawnSpec } from './session.js';
import { TextScrollback } from './scrollback.js';

const { Terminal } = xtermHeadless;
const { SerializeAddon } = xtermSerialize;

export const DEFAULT_COLS = 120;
export const DEFAULT_ROWS = 40;
/** Bounded so an agent that floods its output cannot grow our memory (SPEC 5.7). */
export const SCROLLBACK_LINES = 1000;
/**
 * Of those, the newest kept by the emulator itself, colours and all; the older ones as
 * text (TextScrollback). Enough to take the rows a resize pushes off the screen.
 */
export const EMULATOR_SCROLLBACK_LINES = 100;

/** Line `y` of a buffer as text, trailing blanks trimmed ('' past its end). */
function lineText(buf: IBuffer, y: number): string {
  return buf.getLine(y)?.translateToString(true) ?? '';
}

/**
 * The default backend: the agent in a node-pty pseudo-terminal owned by this process,
 * its output fed into a headless xterm so a capture is the screen a person would see.
 */
export class PtySession implements Session {
  readonly backend = 'pty' as const;
  readonly name: string;
  readonly pid: number;
  private readonly proc: pty.IPty;
  private readonly term: InstanceType<typeof Terminal>;
  private exitInfo: SessionExit | undefined;
  private readonly exitListeners: ((e: SessionExit) => void)[] = [];
  private readonly outputListeners = new Set<(data: string) => void>();
  private disposed = false;
  private serializer: InstanceType<typeof SerializeAddon> | undefined;
  /** See Session.screenVersion: bumped once the emulator has parsed new output. */
  screenVersion = 0;
  private readonly older = new TextScrollback(SCROLLBACK_LINES - EMULATOR_SCROLLBACK_LINES);
  /** The emulator's oldest line while its scrollback is full: the next to be trimmed. */
  private nextTrimmed: string | undefined;

  constructor(spec: SpawnSpec) {
    const cols = spec.cols ?? DEFAULT_COLS;
    const rows = spec.rows ?? DEFAULT_ROWS;
    this.name = spec.name;
    this.term = new Terminal({ cols, rows, scrollback: EMULATOR_SCROLLBACK_LINES, allowProposedApi: true });
    this.term.onScroll(() => this.keepTrimmedLine());
    const [file, ...args] = spec.argv;
    if (!file) throw new Error('empty agent command');
    // node-pty execs the file directly (no shell), in a new session: pid is the group leader.
    this.proc = pty.spawn(file, args, { name: 'xterm-256color', cols, rows, cwd: spec.cwd, env: spec.env });
    this.pid = this.proc.pid;
    this.proc.onData((data) => {
      if (this.disposed) return;
      this.term.write(data, () => this.screenVersion++);
      for (const l of this.outputListeners) l(data);
    });
    this.proc.onExit(({ exitCode, signal }) => {
      this.exitInfo = { exitCode, signal };
      for (const l of this.exitListeners.splice(0)) l(this.exitInfo);
    });
  }

  get exited(): boolean {
    return this.exitInfo !== undefined;
  }

  write(data: string): void {
    if (this.exited || this.disposed) return;
    try {
      this.proc.write(data);
    } catch { /* the agent exited between the check and the write */ }
  }

  resize(cols: number, rows: number): void {
    if (this.disposed) return;
    // Fewer rows push screen lines into the scrollback, and xterm would trim as many from
    // its top unseen: give it room, then take the excess off ourselves, keeping its text.
    this.term.options.scrollback = EMULATOR_SCROLLBACK_LINES + this.term.rows;
    this.term.resize(cols, rows);
    const normal = this.term.buffer.normal;
    const excess = normal.baseY - EMULATOR_SCROLLBACK_LINES;
    for (let y = 0; y < excess; y++) this.older.push(lineText(normal, y));
    this.term.options.scrollback = EMULATOR_SCROLLBACK_LINES;
    // The next line to be trimmed is now line 0 if the scrollback is full, and was kept above if not.
    this.nextTrimmed = normal.baseY >= EMULATOR_SCROLLBACK_LINES ? lineText(normal, 0) : undefined;
    this.screenVersion++;
    if (this.exited) return;
    try {
      this.proc.resize(cols, rows);
    } catch { /* already exited: known and harmless */ }
  }

  /**
   * Called for each line that scrolls into the emulator's scrollback. Once that is full,
   * each scroll trims its oldest line, which was line 0 at the scroll before: that text
   * goes to the older scrollback. Only the normal screen has a scrollback.
   */
  private keepTrimmedLine(): void {
    const buf = this.term.buffer.active;
    if (buf.type !== 'normal') return;
    if (buf.baseY < EMULATOR_SCROLLBACK_LINES) {
      this.nextTrimmed = undefined;
      return;
    }
    if (this.nextTrimmed !== undefined) this.older.push(this.nextTrimmed);
    this.nextTrimmed = lineText(buf, 0);
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  /**
   * The emulator's state (scrollback, screen, cursor, colours, modes) as the bytes that
   * redraw it on a terminal of the same size: attach mode restores the screen with it.
   * The older scrollback comes first, as text.
   */
  serialize(): string {
    if (this.disposed) return '';
    if (!this.serializer) {
      this.serializer = new SerializeAddon();
      this.term.loadAddon(this.serializer);
    }
    const older = this.older.lines();
    return (older.length > 0 ? `${older.join('\r\n')}\r\n` : '') + this.serializer.serialize();
  }

  /**
   * Calls `fn` once every byte received so far is parsed and before any later one is
   * (xterm runs write callbacks between chunks, synchronously). An onOutput listener
   * added just before this call and serialize() called in `fn` then meet with no byte
   * missing or shown twice.
   */
  whenParsed(fn: () => void): void {
    if (this.disposed) queueMicrotask(fn);
    else this.term.write('', fn);
  }

  screen(): string[] {
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y++) lines.push(lineText(buf, buf.viewportY + y));
    return lines;
  }

  onExit(listener: (exit: SessionExit) => void): void {
    if (this.exitInfo) queueMicrotask(() => listener(this.exitInfo!));
    else this.exitListeners.push(listener);
  }

  onOutput(listener: (data: string) => void): () => void {
    this.outputListeners.add(listener);
    return () => this.outputListeners.delete(listener);
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.exited) return;
    try {
      process.kill(-this.pid, signal); // the whole group: the agent's own children too
    } catch {
      try {
        this.proc.kill(signal);
      } catch { /* already gone */ }
    }
  }

  dispose(): void {
    if (this.disposed) return;
    if (!this.exited) this.kill('SIGKILL');
    this.disposed = true;
    this.outputListeners.clear();
    this.term.dispose();
  }
}

export function spawnPtySession(spec: SpawnSpec): Session {
  return new PtySession(spec);
}
