import type { IPty } from 'node-pty';
import type { IBuffer, Terminal } from '@xterm/headless';
import type { SerializeAddon } from '@xterm/addon-serialize';
import { nodePty, xterm, xtermSerialize } from '../lazy.js';
import type { Session, SessionExit, SpawnSpec } from './session.js';
import { TextScrollback } from './scrollback.js';

export const DEFAULT_COLS = 120;
export const DEFAULT_ROWS = 40;
/** Bounded so an agent that floods its output cannot grow our memory. */
export const SCROLLBACK_LINES = 1000;
/**
 * Of those, the newest kept by the emulator itself, colours and all; the older ones as
 * text (TextScrollback). Enough to take the rows a resize pushes off the screen.
 */
export const EMULATOR_SCROLLBACK_LINES = 100;
/**
 * The room the emulator's scrollback has beyond that while output is parsed: the excess
 * goes to the older scrollback at most once a second (keepOlder), not a line at a time.
 * As much as the older scrollback holds: lines xterm trims from it are past the bound.
 */
const SCROLLBACK_ROOM = SCROLLBACK_LINES - EMULATOR_SCROLLBACK_LINES;
/** How long output may run before the emulator's excess scrollback is made text (keepOlder). */
const KEEP_OLDER_MS = 1000;

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
  private readonly proc: IPty;
  private readonly term: Terminal;
  private exitInfo: SessionExit | undefined;
  private readonly exitListeners: ((e: SessionExit) => void)[] = [];
  private readonly outputListeners = new Set<(data: string) => void>();
  private disposed = false;
  private serializer: SerializeAddon | undefined;
  /** See Session.screenVersion: bumped once the emulator has parsed new output. */
  screenVersion = 0;
  private readonly older = new TextScrollback(SCROLLBACK_ROOM);
  private keepOlderTimer: NodeJS.Timeout | undefined;

  constructor(spec: SpawnSpec) {
    const cols = spec.cols ?? DEFAULT_COLS;
    const rows = spec.rows ?? DEFAULT_ROWS;
    this.name = spec.name;
    this.term = new (xterm().Terminal)({ cols, rows, scrollback: EMULATOR_SCROLLBACK_LINES + SCROLLBACK_ROOM, allowProposedApi: true });
    const [file, ...args] = spec.argv;
    if (!file) throw new Error('empty agent command');
    // node-pty execs the file directly (no shell), in a new session: pid is the group leader.
    this.proc = nodePty().spawn(file, args, { name: 'xterm-256color', cols, rows, cwd: spec.cwd, env: spec.env });
    this.pid = this.proc.pid;
    this.proc.onData((data) => {
      if (this.disposed) return;
      this.term.write(data, () => {
        // xterm still runs the callbacks of writes queued before dispose(); its buffer is gone then
        if (this.disposed) return;
        this.screenVersion++;
        if (this.keepOlderTimer === undefined && this.term.buffer.normal.baseY > EMULATOR_SCROLLBACK_LINES) {
          this.keepOlderTimer = setTimeout(() => this.keepOlder(), KEEP_OLDER_MS);
          this.keepOlderTimer.unref?.();
        }
      });
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
    // Fewer rows push screen lines into the scrollback (its room takes them); more pull them back.
    this.keepOlder();
    this.term.resize(cols, rows);
    this.keepOlder();
    this.screenVersion++;
    if (this.exited) return;
    try {
      this.proc.resize(cols, rows);
    } catch { /* already exited: known and harmless */ }
  }

  /**
   * Moves the emulator's scrollback beyond EMULATOR_SCROLLBACK_LINES to the older text
   * scrollback (a second after output scrolled past it, and before a resize or a
   * serialize): of a flood, only the newest lines the older scrollback holds are made
   * text, xterm drops the rest unread. Done for each line as it scrolled (xterm's onScroll),
   * it nearly doubled the parse of a flood (20 MB of 66-column lines: 1.0 s parsed alone,
   * 1.9–2.0 s with every line made text) and its garbage.
   */
  private keepOlder(): void {
    clearTimeout(this.keepOlderTimer);
    this.keepOlderTimer = undefined;
    if (this.disposed) return;
    const normal = this.term.buffer.normal;
    const excess = normal.baseY - EMULATOR_SCROLLBACK_LINES;
    if (excess <= 0) return;
    for (let y = Math.max(0, excess - SCROLLBACK_ROOM); y < excess; y++) this.older.push(lineText(normal, y));
    // A smaller scrollback trims the excess from the top; then the room again.
    this.term.options.scrollback = EMULATOR_SCROLLBACK_LINES;
    this.term.options.scrollback = EMULATOR_SCROLLBACK_LINES + SCROLLBACK_ROOM;
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
      this.serializer = new (xtermSerialize().SerializeAddon)();
      this.term.loadAddon(this.serializer);
    }
    this.keepOlder();
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
    clearTimeout(this.keepOlderTimer);
    this.outputListeners.clear();
    this.term.dispose();
  }
}

export function spawnPtySession(spec: SpawnSpec): Session {
  return new PtySession(spec);
}
