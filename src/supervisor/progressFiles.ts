import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { currentIdentity, readSignalFile, SIGNAL_FILE, SIGNAL_TMP_FILE, type SignalRead } from '../protocol/signal.js';
import { readStopFile, STOP_FILE, type StopRequest } from '../protocol/stopFile.js';
import { removeIfPresent } from '../protocol/atomic.js';
import { signalWrittenMs } from '../spend/loopSpend.js';
import type { EventKind } from '../store/events.js';
import { ticksIn } from './tick.js';
import { pollModuleFiles, watchModuleFiles, type ModuleWatch, type ModuleWatchHandlers } from './moduleWatch.js';
import { within, type LoopEntry } from './loopBoundary.js';

/** How often a polling watcher looks (after the inotify watches ran out). */
export const WATCH_POLL_MS = 250;

/**
 * A watcher error that means the kernel gave no more watches: inotify's per-user limit
 * (`fs.inotify.max_user_watches` / `max_user_instances`, ENOSPC) or descriptors (EMFILE).
 */
export function outOfWatches(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EMFILE' || code === 'ENFILE';
}

/**
 * The supervisor's ticks between two looks at the loop's files, and at its folder.
 * inotify names every write, so with it the look is a rarer safety net (twenty loops'
 * looks were forty stats a second); without it, or while chokidar polls, the look comes
 * every second.
 */
const FILES_LOOK_TICKS = ticksIn(1000);
const FILES_LOOK_TICKS_INOTIFY = ticksIn(5000);
const FOLDER_LOOK_TICKS = ticksIn(2000);
/** Just past chokidar's 50 ms per-path throttle, when it polls (see pollAgainSoon). */
export const TRAILING_POLL_MS = 60;

/** What a loop's progress files need of their loop. */
export interface ProgressFilesHost {
  enter: LoopEntry;
  /** The loop is over: nothing more is read. */
  over(): boolean;
  /** The signal file may have changed. */
  signalChanged(): void;
  /** The stop file may have changed (or appeared). */
  stopChanged(): void;
  event(kind: EventKind, detail: Record<string, unknown>): void;
}

/**
 * The two files through which a loop and its agent talk (the agent's signal, the stop
 * request) and how they are watched: inotify by default, by polling once the kernel has
 * no watch left, and a look now and then at the tick for what a watch missed. Each
 * version of a file is read once.
 */
export class ProgressFiles {
  readonly signalPath: string;
  readonly stopPath: string;
  private watcher: ModuleWatch | undefined;
  private trailingPoll: NodeJS.Timeout | undefined;
  private lastSignalIdentity: string | undefined;
  private lastStopIdentity: string | undefined;
  private folderPresent = true;
  private ticks = 0;

  constructor(private readonly taskDir: string, private readonly host: ProgressFilesHost) {
    this.signalPath = join(taskDir, SIGNAL_FILE);
    this.stopPath = join(taskDir, STOP_FILE);
  }

  /**
   * Watches the module for our two files: inotify by default; by polling (stat every
   * WATCH_POLL_MS, no inotify) once the kernel gave no more watches, said once in the log.
   */
  watch(polling = false): void {
    let watcher: ModuleWatch | undefined;
    const handlers: ModuleWatchHandlers = {
      change: (name) => this.host.enter('watcher', () => {
        if (this.watcher !== watcher) return;
        // Always re-read the file itself: events of quick writes may come as one.
        if (name === SIGNAL_FILE) {
          this.host.signalChanged();
          // chokidar (polling) drops a second change of one path within 50 ms of the first
          if (polling) this.pollAgainSoon();
        } else if (name === STOP_FILE) {
          this.host.stopChanged();
        } else {
          this.poll();
        }
      }),
      error: (err) => this.host.enter('watcher', () => {
        if (watcher !== undefined && this.watcher !== watcher) return; // a watcher already replaced
        if (!polling && outOfWatches(err) && !this.host.over()) {
          watcher?.close();
          this.watcher = undefined;
          this.host.event('error', {
            where: 'watcher', fallback: 'polling', code: (err as NodeJS.ErrnoException).code ?? null,
            message: `no inotify watch left (${String(err.message ?? err)}; see fs.inotify.max_user_watches); watching this module by polling every ${WATCH_POLL_MS} ms`,
          });
          this.watch(true);
          return;
        }
        this.host.event('error', { where: 'watcher', message: String(err) });
      }),
    };
    const names = [SIGNAL_FILE, STOP_FILE];
    try {
      watcher = polling ? pollModuleFiles(this.taskDir, names, WATCH_POLL_MS, handlers) : watchModuleFiles(this.taskDir, names, handlers);
    } catch (err) {
      handlers.error(err as Error);
      return;
    }
    this.watcher = watcher;
    // what was written before the watch began (after begin() has the agent going, as chokidar's `ready` was)
    setImmediate(() => this.host.enter('watcher', () => {
      if (this.watcher === watcher) this.poll();
    }));
  }

  /** At each tick: the looks for what the watcher missed, a safety net made every few ticks. */
  tick(): void {
    const n = this.ticks++;
    if (n % FOLDER_LOOK_TICKS === 0) this.checkFolder();
    if (n % (this.watcher?.polling === false ? FILES_LOOK_TICKS_INOTIFY : FILES_LOOK_TICKS) === 0) this.poll();
  }

  /** Either file changed since it was last read: read it again. */
  poll(): void {
    if (this.host.over()) return;
    if (currentIdentity(this.signalPath) !== this.lastSignalIdentity) this.host.signalChanged();
    if (currentIdentity(this.stopPath) !== this.lastStopIdentity) this.host.stopChanged();
  }

  /**
   * The signal file, when this version of it was not read before; `firstLook`: no version
   * was (an adopted loop finds the one its earlier owner applied).
   */
  newSignal(): { read: SignalRead; firstLook: boolean } | undefined {
    const read = within('signal file', () => readSignalFile(this.signalPath));
    if (read.identity === this.lastSignalIdentity) return undefined;
    const firstLook = this.lastSignalIdentity === undefined;
    this.lastSignalIdentity = read.identity;
    return { read, firstLook };
  }

  /** The signal file was last written before `lastSignalAt`, the row's last applied signal (an earlier owner applied it). */
  appliedBefore(lastSignalAt: string | undefined | null): boolean {
    const applied = lastSignalAt ? Date.parse(lastSignalAt) : NaN;
    const written = this.signalWrittenMs();
    return Number.isFinite(applied) && written !== undefined && written <= applied;
  }

  /** When the signal file was last written (undefined when it is gone). */
  signalWrittenMs(): number | undefined {
    return signalWrittenMs(this.signalPath);
  }

  /** The stop request in the stop file, if there is one. */
  stopRequest(): StopRequest | undefined {
    return within('stop file', () => {
      this.lastStopIdentity = currentIdentity(this.stopPath);
      if (this.lastStopIdentity === undefined) return undefined;
      return readStopFile(this.taskDir);
    });
  }

  /** The loop wrote the stop file itself: that version is no news. */
  stopWritten(): void {
    this.lastStopIdentity = currentIdentity(this.stopPath);
  }

  /**
   * chokidar drops a second change of one path within 50 ms of the first; one more look
   * just after that window finds such a write without waiting for the next tick.
   */
  private pollAgainSoon(): void {
    if (this.trailingPoll) return;
    this.trailingPoll = setTimeout(() => this.host.enter('watcher', () => {
      this.trailingPoll = undefined;
      this.poll();
    }), TRAILING_POLL_MS);
  }

  /** The module folder removed or renamed under the loop (or back again): said once each way. */
  private checkFolder(): void {
    const present = existsSync(this.taskDir);
    if (present === this.folderPresent) return;
    this.folderPresent = present;
    // inotify's watch ended with the folder: a new one for the folder that is back
    if (present && this.watcher && !this.host.over()) {
      this.watcher.close();
      this.watch(this.watcher.polling);
    }
    this.host.event('error', {
      where: 'module folder',
      message: present ? 'the module folder is back; the loop goes on'
        : 'the module folder is gone (removed or renamed); the loop goes on while its agent runs, and ends without a restart when it exits',
    });
  }

  /** Stops watching (the loop ended, or is let go). */
  close(): void {
    if (this.trailingPoll) clearTimeout(this.trailingPoll);
    this.watcher?.close();
  }

  /** The loop's files removed at its end. */
  remove(): void {
    for (const name of [SIGNAL_FILE, SIGNAL_TMP_FILE, STOP_FILE]) {
      try {
        removeIfPresent(join(this.taskDir, name));
      } catch { /* a folder gone or read-only: nothing more to clean */ }
    }
  }
}
