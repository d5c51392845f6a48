import { renameSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { diffFrames, programFrame, SHOW_CURSOR } from './frameDiff.js';
import { gridOfBuffer, gridText, type Grid } from './grid.js';
import { modelTerminal, type ModelTerminal } from './model.js';
import { keyTrace, keyTraceOn } from '../trace.js';

/** The real terminal as the writer needs it: a process.stdout or anything shaped like it. */
export interface TerminalOut {
  write(bytes: string): unknown;
  columns?: number | undefined;
  rows?: number | undefined;
  isTTY?: boolean | undefined;
  on(event: 'resize', listener: () => void): unknown;
  off(event: 'resize', listener: () => void): unknown;
}

export interface FrameWriterOptions {
  /** Wrap frames in synchronized-output marks (default on; off for terminals without DEC 2026). */
  sync?: boolean;
  /** Called after each frame written to the real terminal, with its byte count (for benches and tests). */
  onFrame?: (bytes: number) => void;
  /** Called with what the real terminal shows after each frame, once the model has it (the first frame's comes after it is written). */
  onShown?: (screen: Grid) => void;
}

/**
 * Synchronized output unless AUTODECK_SYNC_OUTPUT=0 says the terminal mishandles it
 * (terminals that do not know DEC mode 2026 ignore it, so on is the safe default).
 */
export function syncOutputWanted(env: NodeJS.ProcessEnv): boolean {
  return env.AUTODECK_SYNC_OUTPUT !== '0';
}

/** Writes the screen's text to `file` whole (a reader never sees half a screen); errors ignored. */
export function dumpScreen(file: string, grid: Grid): void {
  try {
    writeFileSync(`${file}.tmp`, `${gridText(grid)}\n`);
    renameSync(`${file}.tmp`, file);
  } catch { /* a debugging aid must not break the dashboard */ }
}

const FALLBACK_COLS = 80;
const FALLBACK_ROWS = 24;

/**
 * A stream Ink renders into instead of the terminal. Ink's bytes go into a model terminal
 * (a headless xterm of the real one's size); once a frame is in (everything written in one
 * turn of the event loop), the model's screen is compared with what the real terminal was
 * last sent, and only the cells that changed go out, each run behind a cursor move. Ink
 * itself redraws whole lines or whole frames; a tick of a few clocks costs a few cells here.
 *
 * Ink reads `columns`, `rows` and `isTTY` and listens for 'resize' on the stream it is
 * given: those come from the real terminal.
 */
export class FrameWriter extends Writable {
  private readonly term: ModelTerminal;
  /** What the real terminal shows; undefined means unknown, so the next frame is drawn whole. */
  private shown: Grid | undefined;
  private paused = false;
  private flushQueued = false;
  private disposed = false;
  private readonly sync: boolean;
  private readonly onFrame: ((bytes: number) => void) | undefined;
  private readonly onShown: ((screen: Grid) => void) | undefined;
  /**
   * Ink's bytes of the very first frame, sent as they are (start-up, issue 12): the model
   * and the terminal both start blank, so the same bytes leave both showing the same; the
   * model's parse and the cell diff come after, off the first frame's path. Undefined once
   * the first frame is out: every later frame goes through the model.
   */
  private firstFrame: string[] | undefined = [];
  /** The first frame went out as Ink wrote it: the next flush only records what it shows. */
  private drawnRaw = false;

  constructor(private readonly out: TerminalOut, opts: FrameWriterOptions = {}) {
    super({ decodeStrings: false });
    this.sync = opts.sync ?? true;
    this.onFrame = opts.onFrame;
    this.onShown = opts.onShown;
    this.term = modelTerminal(this.columns, this.rows);
    out.on('resize', this.onResize);
  }

  get columns(): number {
    return this.out.columns || FALLBACK_COLS;
  }

  get rows(): number {
    return this.out.rows || FALLBACK_ROWS;
  }

  get isTTY(): boolean {
    return this.out.isTTY === true;
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.disposed) {
      if (keyTraceOn && !this.flushQueued) keyTrace('ink writes');
      if (this.firstFrame && typeof chunk === 'string') this.firstFrame.push(chunk);
      else this.firstFrame = undefined;
      this.term.write(typeof chunk === 'string' ? chunk : new Uint8Array(chunk));
      this.queueFlush();
    }
    callback();
  }

  /** The next frame is drawn whole: something else drew on the real terminal. */
  invalidate(): void {
    this.shown = undefined;
    this.drawnRaw = false;
    this.queueFlush();
  }

  /**
   * Nothing more goes to the real terminal until `reset()` (the terminal is handed to
   * something else, as on attach); the cursor is shown again, as Ink would on unmount.
   */
  pause(): void {
    if (this.paused || this.disposed) return;
    this.paused = true;
    this.out.write(SHOW_CURSOR);
  }

  /**
   * A blank model with the cursor at home (as after entering the alternate screen), and
   * writing resumed; the next frame is drawn whole.
   */
  reset(): void {
    if (this.disposed) return;
    this.term.write('\x1b[0m\x1b[H\x1b[2J');
    this.paused = false;
    this.invalidate();
  }

  /** Stops listening to the real terminal and frees the model; later writes are dropped. */
  close(): void {
    if (this.disposed) return;
    this.pause();
    this.disposed = true;
    this.out.off('resize', this.onResize);
    this.term.dispose();
  }

  /** The model's screen: what the real terminal shows once the pending frame is out. */
  screen(): Grid {
    return gridOfBuffer(this.term.buffer.active, this.term.cols, this.term.rows);
  }

  /** Resolves once everything written so far has reached the real terminal (or was dropped). */
  flushed(): Promise<void> {
    return new Promise((resolve) => {
      if (this.disposed) return resolve();
      setImmediate(() => {
        if (this.disposed) return resolve();
        this.term.write('', () => setImmediate(resolve));
      });
    });
  }

  private readonly onResize = (): void => {
    if (this.disposed) return;
    this.term.resize(this.columns, this.rows);
    this.invalidate();
    this.emit('resize');
  };

  /** One flush per turn of the event loop: Ink writes a frame in several synchronous writes. */
  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      // Writes from here on queue a flush of their own.
      this.flushQueued = false;
      if (this.disposed) return;
      if (this.firstFrame) this.drawFirstFrame(this.firstFrame);
      // The empty write's callback runs once the model has parsed everything before it.
      this.term.write('', () => this.flush());
    });
  }

  /** The first frame as Ink wrote it, over a screen made what the model's start is (blank, cursor home). */
  private drawFirstFrame(chunks: string[]): void {
    const ink = chunks.join('');
    if (ink === '') return; // a flush before Ink's first frame (reset() queues one): still to come
    this.firstFrame = undefined;
    if (this.paused) return;
    const bytes = programFrame(ink, { sync: this.sync });
    this.drawnRaw = true;
    this.out.write(bytes);
    this.onFrame?.(Buffer.byteLength(bytes));
  }

  private flush(): void {
    if (this.disposed || this.paused) return;
    const next = this.screen();
    if (this.drawnRaw) {
      this.drawnRaw = false;
      this.shown = next;
      this.onShown?.(next);
      return;
    }
    const bytes = diffFrames(this.shown, next, { sync: this.sync });
    this.shown = next;
    if (keyTraceOn) keyTrace(`frame ${bytes.length} bytes, selected ${/^› (\S+)/m.exec(gridText(next))?.[1] ?? '-'}`);
    if (bytes === '') return;
    this.out.write(bytes);
    this.onFrame?.(Buffer.byteLength(bytes));
    this.onShown?.(next);
  }
}
