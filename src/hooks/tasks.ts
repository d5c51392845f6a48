import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The tasks of a module as the Stop hook counts them: the items of
 * `.checklist.json` and the checkbox lines of `.plan.md`, both when both exist.
 */
export const CHECKLIST_FILE = '.checklist.json';
export const PLAN_FILE = '.plan.md';

/** Checklist statuses that need no more work (compared case-insensitively). */
export const TERMINAL_STATUSES = ['completed', 'done', 'cancelled', 'skipped'] as const;

/** A task file larger than this is not a task list anyone maintains by hand: no tasks. */
export const MAX_TASK_FILE_BYTES = 4 * 1024 * 1024;

export interface Task {
  subject: string;
  done: boolean;
}

export interface TaskSummary {
  total: number;
  completed: number;
  /** The subjects of the tasks still open, in file order. */
  remaining: string[];
}

/**
 * The items of a `.checklist.json`: `[{id, subject, status}]`. Anything that is not such
 * an array gives no tasks; an item that is not an object is skipped. The subject falls
 * back to `content` (Claude Code's todo shape), `title`, then `id`.
 */
export function parseChecklist(text: string): Task[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  const tasks: Task[] = [];
  raw.forEach((item: unknown, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return;
    const o = item as Record<string, unknown>;
    const status = typeof o.status === 'string' ? o.status.trim().toLowerCase() : '';
    tasks.push({ subject: subjectOf(o, i), done: (TERMINAL_STATUSES as readonly string[]).includes(status) });
  });
  return tasks;
}

function subjectOf(o: Record<string, unknown>, i: number): string {
  for (const key of ['subject', 'content', 'title', 'id']) {
    const v = o[key];
    if ((typeof v === 'string' && v.trim() !== '') || typeof v === 'number') return oneLine(String(v));
  }
  return `task ${i + 1}`;
}

// `- [ ] text`, `* [x] text`, `+ [X] text`, indented or not; the box needs a space after it or the end of line.
const CHECKBOX = /^\s*[-*+]\s+\[([ xX])\](?:\s+(.*))?$/;
const FENCE = /^\s*(```|~~~)/;

/**
 * The checkbox lines of a `.plan.md`: `- [ ]` open, `- [x]` / `- [X]` done (also `*` and
 * `+` bullets). Lines inside fenced code blocks are examples, not tasks.
 */
export function parsePlan(text: string): Task[] {
  const tasks: Task[] = [];
  let fence: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const f = FENCE.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1];
      else if (f[1] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const m = CHECKBOX.exec(line);
    if (!m) continue;
    tasks.push({ subject: oneLine(m[2] ?? '') || `task ${tasks.length + 1}`, done: m[1] !== ' ' });
  }
  return tasks;
}

export function summarize(tasks: readonly Task[]): TaskSummary {
  const remaining = tasks.filter((t) => !t.done).map((t) => t.subject);
  return { total: tasks.length, completed: tasks.length - remaining.length, remaining };
}

/** Both sources of one module, summed. Pure: give it the texts (undefined when absent). */
export function tasksFromTexts(checklist: string | undefined, plan: string | undefined): TaskSummary {
  return summarize([...(checklist === undefined ? [] : parseChecklist(checklist)), ...(plan === undefined ? [] : parsePlan(plan))]);
}

/** Reads the module's task files; a missing, unreadable, huge or malformed file counts as no tasks. Never throws. */
export function readTasks(taskDir: string): TaskSummary {
  try {
    return tasksFromTexts(readSmall(join(taskDir, CHECKLIST_FILE)), readSmall(join(taskDir, PLAN_FILE)));
  } catch {
    return { total: 0, completed: 0, remaining: [] };
  }
}

function readSmall(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_TASK_FILE_BYTES) return undefined;
    const buf = Buffer.alloc(st.size);
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
    return buf.toString('utf8', 0, n);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
