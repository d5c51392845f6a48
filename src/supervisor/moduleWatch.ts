import { watch } from 'node:fs';
import { join } from 'node:path';
import { chokidar } from '../lazy.js';

/** How a module folder is watched for a loop's few files; `close` ends it. */
export interface ModuleWatch {
  /** Polling (no inotify): a new watch of the same folder polls too. */
  readonly polling: boolean;
  close(): void;
}

export interface ModuleWatchHandlers {
  /** One of the files may have changed; `name` undefined when the kernel did not say which. */
  change(name: string | undefined): void;
  error(err: Error): void;
}

/**
 * Watches a module folder for changes to the files `names`, through inotify (Node's
 * `fs.watch`): the kernel names the file of each event, so an event costs one callback.
 *
 * Not chokidar here on purpose: on every event in a watched folder chokidar reads the
 * whole folder again (a `readdir` and an `lstat` per entry, on the thread pool), which
 * was the largest cost of a dashboard at rest (docs/performance.md). Its
 * polling serves below when the kernel has no inotify watch left.
 *
 * Throws when the kernel refuses the watch (ENOSPC and the like: see `outOfWatches`).
 */
export function watchModuleFiles(dir: string, names: readonly string[], on: ModuleWatchHandlers): ModuleWatch {
  const watcher = watch(dir, (_event, filename) => {
    if (filename === null) on.change(undefined);
    else if (names.includes(String(filename))) on.change(String(filename));
  });
  watcher.on('error', (err: Error) => on.error(err));
  return { polling: false, close: () => watcher.close() };
}

/** The same by polling the folder every `intervalMs` (chokidar's polling: no inotify at all). */
export function pollModuleFiles(dir: string, names: readonly string[], intervalMs: number, on: ModuleWatchHandlers): ModuleWatch {
  const paths = names.map((n) => join(dir, n));
  const watcher = chokidar().watch(dir, {
    depth: 0,
    ignoreInitial: true,
    // Only our files: everything else in the module is the agent's business.
    ignored: (p: string) => p !== dir && !paths.includes(p),
    usePolling: true,
    interval: intervalMs,
  });
  const changed = (p: string): void => {
    const i = paths.indexOf(p);
    if (i >= 0) on.change(names[i]);
  };
  watcher.on('add', changed).on('change', changed).on('error', (err) => on.error(err as Error));
  return { polling: true, close: () => void watcher.close() };
}
