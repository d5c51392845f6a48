import { existsSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { basename, dirname, join, relative, isAbsolute, resolve } from 'node:path';
import { agentFileText } from './safeRead.js';
import { currentIdentity } from './signal.js';
import { targetHasContent } from './target.js';

export { targetHasContent };

/** The module's own files are the agent's to write: read a bounded head of them. */
const MAX_INFO_BYTES = 64 * 1024;
const MAX_TARGET_BYTES = 256 * 1024;

/** Files whose presence makes a folder a task module. */
export const MODULE_MARKERS = ['.index.json', '.index.md', '.target.md', '.working/.status.json'] as const;

export const LIFECYCLE_STATUSES = [
  'draft', 'planning', 'review', 'executing', 're-planning', 'complete', 'blocked', 'cancelled', 'evolving', 'satisfied',
] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number] | 'unknown';

export interface TaskModule {
  name: string;
  /** Absolute, real path. */
  dir: string;
  /** The real path of the root it was found under. */
  root: string;
}

export function isTaskModuleDir(dir: string): boolean {
  return MODULE_MARKERS.some((m) => existsSync(join(dir, m)));
}

/** The real paths of the roots that exist. */
function realRoots(roots: readonly string[]): string[] {
  return roots.flatMap((r) => {
    try {
      return [realpathSync.native(r)];
    } catch {
      return [];
    }
  });
}

/** Task modules directly under each root, sorted by name; unreadable roots are skipped. */
export function discoverModules(roots: readonly string[]): TaskModule[] {
  const found = new Map<string, TaskModule>();
  for (const root of realRoots(roots)) {
    let entries: Dirent[];
    try {
      // The entries' types come with the listing: a folder costs no stat of its own.
      entries = readdirSync(root, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const dir = join(root, entry.name);
      try {
        const real = realFolder(entry, dir);
        if (real === undefined || !isTaskModuleDir(real)) continue;
        if (!found.has(real)) found.set(real, { name: basename(real), dir: real, root });
      } catch {
        /* vanished or unreadable: not a module now */
      }
    }
  }
  return [...found.values()].sort((a, b) => byText(a.name, b.name) || byText(a.dir, b.dir));
}

/**
 * The real path of a root's entry when it is a folder (or a link to one), else undefined.
 * A folder under a real root is its own real path; only a link is resolved. The discovery
 * runs every few seconds per root, so the common case costs no system call here.
 */
function realFolder(entry: Dirent, path: string): string | undefined {
  if (entry.isDirectory()) return path;
  if (!entry.isSymbolicLink() || !statSync(path).isDirectory()) return undefined;
  return realpathSync.native(path); // one syscall; the JS one lstats each part of the path
}

/**
 * Case-insensitive order, then lower case first (as localeCompare orders them). Not localeCompare: its first call loads
 * ICU's collation data for every locale, about 2 MB resident for the dashboard's lifetime
 * on Node 24 (docs/performance.md).
 */
function byText(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a === b ? 0 : a > b ? -1 : 1;
}

export type ModuleResolution = { ok: true; module: TaskModule } | { ok: false; error: string };

/**
 * Resolves a path given by a user to a task module directly under one of the roots.
 * The path may be relative (to cwd); it is handled as its real path from here on.
 */
export function resolveModule(path: string, roots: readonly string[], cwd = process.cwd()): ModuleResolution {
  const abs = isAbsolute(path) ? path : resolve(cwd, path);
  let real: string;
  try {
    real = realpathSync.native(abs); // as the roots are resolved, so the two compare
  } catch {
    return { ok: false, error: `no such task module: ${abs}` };
  }
  if (!statSync(real).isDirectory()) return { ok: false, error: `not a folder: ${real}` };
  if (!isTaskModuleDir(real)) {
    return { ok: false, error: `not a task module (no .index.json, .index.md, .target.md or .working/.status.json): ${real}` };
  }
  const root = realRoots(roots).find((r) => r === dirname(real));
  if (root) return { ok: true, module: { name: basename(real), dir: real, root } };
  return { ok: false, error: `${real} is not directly under a root (${roots.join(', ') || 'none'}); pass --root` };
}

function readJsonObject(path: string): Record<string, unknown> | undefined {
  try {
    const raw: unknown = JSON.parse(agentFileText(path, MAX_INFO_BYTES) ?? '');
    return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The YAML-ish front matter of a markdown file: `key: value` lines between `---` fences. */
export function parseFrontMatter(text: string): Record<string, string> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return {};
  const out: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    if (line.trim() === '---') return out;
    const m = /^([A-Za-z0-9_-]+)\s*:\s*(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!.trim().replace(/^(["'])(.*)\1$/, '$2');
  }
  return {}; // an unterminated fence is not front matter
}

function normaliseStatus(value: unknown): LifecycleStatus | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const v = value.trim().toLowerCase();
  return (LIFECYCLE_STATUSES as readonly string[]).includes(v) ? (v as LifecycleStatus) : 'unknown';
}

export interface ModuleInfo {
  status: LifecycleStatus;
  title?: string;
  /** From `.working/.status.json`. */
  stage?: string;
  updatedAt?: string;
}

/** The files readModuleInfo reads; moduleInfoIdentity looks at the same ones. */
const INDEX_JSON = '.index.json';
const INDEX_MD = '.index.md';
const WORKING_STATUS = join('.working', '.status.json');
const INFO_FILES = [INDEX_JSON, INDEX_MD, WORKING_STATUS];

/** Tells one state of a module's info files from the next without reading them (one lstat each). */
export function moduleInfoIdentity(dir: string): string {
  return INFO_FILES.map((f) => currentIdentity(join(dir, f)) ?? '-').join('|');
}

/**
 * The module's own lifecycle status: `.index.json` status, else `.index.md`
 * front-matter `status:`, else `.working/.status.json` status.
 */
export function readModuleInfo(dir: string): ModuleInfo {
  const index = readJsonObject(join(dir, INDEX_JSON));
  const front = parseFrontMatter(agentFileText(join(dir, INDEX_MD), MAX_INFO_BYTES, 'truncate') ?? '');
  const working = readJsonObject(join(dir, WORKING_STATUS));
  const status = normaliseStatus(index?.status) ?? normaliseStatus(front.status) ?? normaliseStatus(working?.status) ?? 'unknown';
  const title = [index?.title, front.title].find((t): t is string => typeof t === 'string' && t.trim() !== '');
  const info: ModuleInfo = { status };
  if (title) info.title = title;
  if (typeof working?.stage === 'string') info.stage = working.stage;
  if (typeof working?.updated_at === 'string') info.updatedAt = working.updated_at;
  return info;
}

export function readTarget(dir: string): string | undefined {
  return agentFileText(join(dir, '.target.md'), MAX_TARGET_BYTES, 'truncate');
}

/** Why a loop may not start on this module, or undefined when it may. */
export function startRefusal(dir: string): string | undefined {
  const { status } = readModuleInfo(dir);
  if (status === 'cancelled') return 'the task module is cancelled';
  if (status === 'draft' && !targetHasContent(readTarget(dir) ?? '')) return 'fill .target.md first';
  return undefined;
}

export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}
