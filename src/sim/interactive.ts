import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../protocol/atomic.js';

/** Checklist statuses that need no more work. */
const TERMINAL = new Set(['completed', 'done', 'cancelled', 'skipped']);

/**
 * One turn's work for the simulated interactive agent: the first open item of
 * `.checklist.json` becomes `completed`. Returns its subject, or undefined when none is open.
 */
export function completeOneTask(taskDir: string): string | undefined {
  const path = join(taskDir, '.checklist.json');
  let items: unknown;
  try {
    items = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(items)) return undefined;
  const open = items.find((i): i is Record<string, unknown> => !!i && typeof i === 'object' && !TERMINAL.has(String((i as Record<string, unknown>).status)));
  if (!open) return undefined;
  open.status = 'completed';
  writeFileAtomic(path, `${JSON.stringify(items, null, 2)}\n`);
  return String(open.subject ?? open.id ?? 'a task');
}

export interface StopHookAnswer {
  block: boolean;
  reason?: string;
}

/**
 * Calls `autodeck hook stop` the way Claude Code does at the end of a turn: the event
 * JSON on stdin; `{"decision":"block","reason":…}` on stdout starts another turn.
 */
export function callStopHook(argv: readonly string[], event: Record<string, unknown>, env: NodeJS.ProcessEnv): StopHookAnswer {
  const [program, ...args] = argv;
  const r = spawnSync(program!, args, { input: JSON.stringify(event), env, encoding: 'utf8', timeout: 10_000 });
  try {
    const out = JSON.parse(r.stdout || '{}') as { decision?: string; reason?: string };
    if (out.decision === 'block') return { block: true, reason: String(out.reason ?? '') };
  } catch { /* no decision: the stop is allowed */ }
  return { block: false };
}
