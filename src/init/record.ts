import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { xdgStateHome } from '../paths.js';
import { removeIfPresent, writeFileAtomic } from '../protocol/atomic.js';

/**
 * What `init` changed, so that `init --undo` takes back exactly that and nothing else: kept
 * in autodeck's state folder (not in the project, where it would be committed), one file per
 * settings file, added to by each init that changes something.
 */
export interface HookRecord {
  event: string;
  command: string;
  /** The command it replaced (an autodeck hook whose path moved); undefined: added. */
  previous?: string | undefined;
  /** The event's list did not exist before. */
  createdEvent: boolean;
  /** The file's `hooks` did not exist before. */
  createdHooks: boolean;
}

export interface InitRecord {
  kind: 'project' | 'user';
  dir: string;
  settings: { path: string; created: boolean; hooks: HookRecord[] };
  gitignore?: { path: string; created: boolean; lines: string[] } | undefined;
  skill?: { path: string; created: boolean; sha256: string; previous?: string | undefined } | undefined;
  /** Folders init made, outermost first. */
  dirs: string[];
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export function recordPath(settingsPath: string, env: NodeJS.ProcessEnv): string {
  return join(xdgStateHome(env), 'autodeck', 'init', `${sha256(settingsPath).slice(0, 16)}.json`);
}

export function readRecord(path: string): InitRecord | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as InitRecord;
  } catch {
    return undefined;
  }
}

/** `next` added to what an earlier init recorded (its own changes first, as they were made). */
export function mergeRecords(earlier: InitRecord | undefined, next: InitRecord): InitRecord {
  if (!earlier) return next;
  return {
    ...earlier,
    settings: { ...earlier.settings, hooks: [...earlier.settings.hooks, ...next.settings.hooks] },
    gitignore: earlier.gitignore || next.gitignore
      ? { ...(earlier.gitignore ?? next.gitignore!), lines: [...(earlier.gitignore?.lines ?? []), ...(next.gitignore?.lines ?? [])] }
      : undefined,
    skill: next.skill && earlier.skill ? { ...next.skill, created: earlier.skill.created, previous: earlier.skill.previous } : next.skill ?? earlier.skill,
    dirs: [...earlier.dirs, ...next.dirs.filter((d) => !earlier.dirs.includes(d))],
  };
}

export function writeRecord(path: string, record: InitRecord): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, `${JSON.stringify(record, null, 2)}\n`);
}

export function removeRecord(path: string): void {
  removeIfPresent(path);
}
