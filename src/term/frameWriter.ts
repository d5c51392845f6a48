import { renameSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { diffFrames, programFrame, SHOW_CURSOR } from './frameDiff.js';
import { gridOfBuffer, gridText, type Grid } from './grid.js';
import { modelTerminal, type ModelTerminal } from './model.js';
import { overlayBlocks, type LiveBlock, type LiveCells } from './liveCells.js';
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
  /** The wall clock the live cells are drawn at (tests pass their own). */
  now?: () => number;
  /**
   * What brings the live cells up to date about once a second, instead of a timer of the
   * writer's own: the dashboard passes the supervisor's tick, so the clocks cost no wake-up.
   */
  pulse?: Pulse;
}

/** Subscribes a listener to a periodic beat; returns what unsubscribes it. */
export type Pulse = (listener: () => void) => () => void;

/** The writer's own pulse when it is given none: a timer that keeps no process alive. */
const everySecond: Pulse = (listener) => {
  const timer = setInterval(listener, LIVE_TICK_MS);
  timer.unref?.();
  return () => clearInterval(timer);
};

/** Live cells (the clocks) are brought up to date this often, between Ink's frames. */
export const LIVE_TICK_MS = 1000;

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
  /**
   * Made once the first frame is out (start-up: building a terminal emulator is ~10 ms);
   * until then what Ink writes waits in `unparsed`.
   */
  private termMade: ModelTerminal | undefined;
  private unparsed: Array<string | Uint8Array> = [];
  /** What the real terminal shows; undefined means unknown, so the next frame is drawn whole. */
  private shown: Grid | undefined;
  private paused = false;
  private flushQueued = false;
  private disposed = false;
  private readonly sync: boolean;
  private readonly onFrame: ((bytes: number) => void) | undefined;
  private readonly onShown: ((screen: Grid) => void) | undefined;
  /**
   * Ink's bytes of the very first frame, sent as they are (start-up): the model
   * and the terminal both start blank, so the same bytes leave both showing the same; the
   * model's parse and the cell diff come after, off the first frame's path. Undefined once
   * the first frame is out: every later frame goes through the model.
   */
  private firstFrame: string[] | undefined = [];
  /** The first frame went out as Ink wrote it: the next flush only records what it shows. */
  private drawnRaw = false;
  /** Ink's last frame as the model has it, before the live cells are drawn over it. */
  private inkFrame: Grid | undefined;
  private live: LiveCells | undefined;
  /** The live blocks as last drawn over Ink's frame. */
  private liveDrawn: readonly LiveBlock[] = [];
  private stopLiveTicks: (() => void) | undefined;
  private liveQueued = false;
  private readonly now: () => number;
  private readonly pulse: Pulse;

  constructor(private readonly out: TerminalOut, opts: FrameWriterOptions = {}) {
    super({ decodeStrings: false });
    this.sync = opts.sync ?? true;
    this.onFrame = opts.onFrame;
    this.onShown = opts.onShown;
    this.now = opts.now ?? Date.now;
    this.pulse = opts.pulse ?? everySecond;
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
      const bytes = typeof chunk === 'string' ? chunk : new Uint8Array(chunk);
      if (this.termMade) this.termMade.write(bytes);
      else this.unparsed.push(bytes);
      this.queueFlush();
    }
    callback();
  }

  /**
   * Cells that move with time alone, kept current by this writer each second between
   * Ink's frames (undefined: none). Ink's frames are drawn with them too.
   */
  setLiveCells(live: LiveCells | undefined): void {
    this.live?.setOnChange?.(undefined);
    this.live = live;
    this.stopLiveTicks?.();
    this.stopLiveTicks = undefined;
    if (!live || this.disposed) return;
    live.setOnChange?.(() => this.queueLive());
    this.stopLiveTicks = this.pulse(() => this.tickLive());
  }

  /** The model terminal, made (and given what Ink wrote so far) on first use. */
  private get term(): ModelTerminal {
    if (!this.termMade) {
      this.termMade = modelTerminal(this.columns, this.rows);
      for (const bytes of this.unparsed) this.termMade.write(bytes);
      this.unparsed = [];
    }
    return this.termMade;
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
    // A model not made yet starts blank with the cursor at home anyway.
    if (this.termMade) this.termMade.write('\x1b[0m\x1b[H\x1b[2J');
    else this.unparsed = [];
    this.paused = false;
    this.invalidate();
  }

  /** Stops listening to the real terminal and frees the model; later writes are dropped. */
  close(): void {
    if (this.disposed) return;
    this.pause();
    this.disposed = true;
    this.out.off('resize', this.onResize);
    this.setLiveCells(undefined);
    this.termMade?.dispose();
    this.unparsed = [];
  }

  /** What the real terminal shows once the pending frame is out: the model's screen, live cells drawn in. */
  screen(): Grid {
    return overlayBlocks(this.inkScreen(), this.liveDrawn).grid;
  }

  private inkScreen(): Grid {
    // Ink's last frame lends the rows this one did not change (the diff skips a row it already sent).
    return gridOfBuffer(this.term.buffer.active, this.term.cols, this.term.rows, this.inkFrame);
  }

  /** `frame` with the live cells at this moment; asks Ink to draw when one cannot be placed. */
  private withLive(frame: Grid): Grid {
    if (!this.live) return frame;
    this.liveDrawn = this.live.blocks(this.now());
    const { grid, stale } = overlayBlocks(frame, this.liveDrawn);
    if (stale) {
      if (keyTraceOn) keyTrace('live cells: Ink must draw');
      this.live.redraw();
    }
    return grid;
  }

  /** A second passed: the clocks move, and only their cells go out. */
  private tickLive(): void {
    if (this.live?.ticking()) this.drawLive();
  }

  /** The live cells changed other than by time (a step React was spared): drawn in this turn's end. */
  private queueLive(): void {
    if (this.liveQueued) return;
    this.liveQueued = true;
    setImmediate(() => {
      this.liveQueued = false;
      this.drawLive();
    });
  }

  /** Ink's last frame with the live cells as they are now; nothing while Ink's next frame is on its way (it brings them). */
  private drawLive(): void {
    if (this.disposed || this.paused || !this.live || !this.inkFrame || !this.shown || this.flushQueued) return;
    this.send(this.withLive(this.inkFrame));
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
    this.termMade?.resize(this.columns, this.rows);
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
    this.inkFrame = this.inkScreen();
    if (this.drawnRaw) {
      // The clocks Ink drew are this moment's: the next tick brings them on.
      this.drawnRaw = false;
      this.liveDrawn = [];
      this.shown = this.inkFrame;
      this.onShown?.(this.shown);
      return;
    }
    this.send(this.withLive(this.inkFrame));
  }

  private send(next: Grid): void {
    const bytes = diffFrames(this.shown, next, { sync: this.sync });
    this.shown = next;
    if (keyTraceOn) keyTrace(`frame ${bytes.length} bytes, selected ${/^› (\S+)/m.exec(gridText(next))?.[1] ?? '-'}`);
    if (bytes === '') return;
    this.out.write(bytes);
    this.onFrame?.(Buffer.byteLength(bytes));
    this.onShown?.(next);
  }
}
