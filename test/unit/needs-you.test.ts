import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { needsYou, needsYouLine } from '../../src/deck/needsYou.js';
import { countGroups, countText as groupText, stateOf, tmuxSegment } from '../../src/deck/states.js';
import { countText, stateCounts } from '../../src/deck/header.js';
import { rowCells, stateCell } from '../../src/deck/cells.js';
import { quickDbPath } from '../../src/commands/statusDb.js';
import { resolveSettings } from '../../src/config/settings.js';
import { screenQuestion } from '../../src/supervisor/needsYouScreen.js';
import { loopRow, moduleRow } from '../helpers/fakeModel.js';
import type { WaitingFor } from '../../src/store/loops.js';

const waiting = (reason: WaitingFor['reason'], text: string): WaitingFor => ({ reason, text, since: '2026-11-23T05:00:00.000Z' });

describe('needsYou: derived from the loop row', () => {
  it.each([
    ['running, nothing asked', { status: 'running' as const }, undefined],
    ['a prompt left to a person', { status: 'running' as const, waitingFor: waiting('permission', 'Bash: docker prune — Do you want to proceed?') }, { reason: 'permission', text: 'Bash: docker prune — Do you want to proceed?' }],
    ['a question, escapes stripped', { status: 'stalled' as const, waitingFor: waiting('question', 'Which \u001b[31mdb\u001b[0m?\nnow') }, { reason: 'question', text: 'Which db? now' }],
    ['a far quota reset', { status: 'quota_wait' as const, waitingFor: waiting('quota', 'weekly limit (until 2026-11-30 08:30 UTC)') }, { reason: 'quota' }],
    ['a failed row', { status: 'failed' as const, stopReason: 'the agent exited 3 times in a row' }, { reason: 'failed', text: 'the agent exited 3 times in a row' }],
    ['an unknown command', { status: 'failed' as const, stopReason: 'the agent does not know the command /autodeck-auto: run `autodeck init` in the project, or set `agent`' }, { reason: 'unknown_command' }],
    ['a stopping loop no longer waits', { status: 'stopping' as const, waitingFor: waiting('permission', 'x') }, undefined],
  ])('%s', (_name, patch, expected) => {
    const n = needsYou(loopRow('/ws/m', patch));
    if (expected === undefined) expect(n).toBeUndefined();
    else expect(n).toMatchObject(expected);
  });

  it('reads as one line with its reason', () => {
    expect(needsYouLine({ reason: 'answer_not_taken', text: 'Bash: make' })).toBe('prompt not answered: Bash: make');
  });
});

describe('the state groups and the tmux segment', () => {
  it('put a waiting loop in needs you whatever its status, and count every module once', () => {
    const states = [
      stateOf({ loop: loopRow('/a') }), stateOf({ loop: loopRow('/b', { status: 'stalled' }) }), stateOf({ loop: loopRow('/c', { status: 'quota_wait' }) }),
      stateOf({ loop: loopRow('/d', { waitingFor: waiting('question', 'q?') }) }),
      stateOf({ loop: loopRow('/d2', { status: 'quota_wait', waitingFor: waiting('quota', 'resets in 3 days') }) }),
      stateOf({ loop: loopRow('/e', { status: 'failed', stopReason: 'x' }) }),
      stateOf({ lastOutcome: 'complete' }), stateOf({ lastOutcome: 'stall_limit' }), stateOf({ lastOutcome: 'user_stop' }), stateOf({ lifecycle: 'planning' }),
    ];
    expect(countGroups(states).map((c) => groupText(c, false))).toEqual(
      ['? 2 needs you', '✗ 2 failed', '‖ 2 waiting', '▶ 1 running', '■ 1 stopped', '✓ 1 done', '· 1 idle']);
    expect(tmuxSegment(states.slice(0, 6))).toBe('?2 ✗1 ‖2 ▶1');
    expect(tmuxSegment([])).toBe('');
  });
});

describe('the dashboard: STATE, STEP and the header', () => {
  const ask = moduleRow('asks', { loop: loopRow('/ws/asks', { waitingFor: waiting('permission', 'Bash: git push --force origin main — Do you want to proceed?') }) });
  it('a waiting loop reads `? needs you`, loud, with the reason and the prompt where the step was', () => {
    expect(stateCell(ask)).toMatchObject({ glyph: '?', word: 'needs you', loud: true });
    expect(rowCells(ask, Date.now(), { stallThreshold: 3, recoveryTotal: 10 }).step).toBe('permission: Bash: git push --force origin main — Do you want to proceed?');
  });
  it('the header counts needs you first, then failed, running and done', () => {
    const rows = [ask, moduleRow('a', { loop: loopRow('/ws/a') }), moduleRow('b', { loop: loopRow('/ws/b', { status: 'failed', stopReason: 'x' }) }), moduleRow('c', { lifecycle: 'complete' })];
    expect(stateCounts(rows).map((c) => countText(c, false))).toEqual(['? 1 needs you', '✗ 1 failed', '▶ 1 running', '✓ 1 done']);
    expect(stateCounts(rows).map((c) => countText(c, true)).join(' ')).toBe('?1 ✗1 ▶1 ✓1');
  });
});

describe('screenQuestion', () => {
  it.each([
    [['☐ Database', 'Which database should the service use?', '❯ 1. SQLite', '  2. Postgres', 'Enter to select · ↑/↓ to navigate · Esc to cancel'], 'Which database should the service use?'],
    [['  Question 1/3 (3 unanswered)', '  › 1. Option A', '    2. Option B', '  tab to add notes | enter to submit answer | esc to interrupt'], 'Question 1/3 (3 unanswered)'],
  ])('%#', (lines, text) => expect(screenQuestion(lines)).toBe(text));
});

describe('quickDbPath finds the db the settings would', () => {
  const project = (): { cwd: string; env: NodeJS.ProcessEnv } => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'autodeck-quickdb-')));
    mkdirSync(join(cwd, '.git'));
    mkdirSync(join(cwd, 'home'));
    return { cwd, env: { HOME: join(cwd, 'home'), XDG_STATE_HOME: join(cwd, 'state'), XDG_CONFIG_HOME: join(cwd, 'config') } };
  };
  const full = (cwd: string, env: NodeJS.ProcessEnv, flag?: string) => resolveSettings({ flags: flag ? { db: flag } : {}, env, cwd }).value.db;
  it('default, flag, environment, project file, user file', () => {
    const { cwd, env } = project();
    expect(quickDbPath(undefined, env, cwd)).toBe(full(cwd, env));
    mkdirSync(join(cwd, 'rel')); // a named database's folder must exist
    expect(quickDbPath('rel/x.db', env, cwd)).toBe(full(cwd, env, 'rel/x.db'));
    const withEnv = { ...env, AUTODECK_DB: '~/e.db' };
    expect(quickDbPath(undefined, withEnv, cwd)).toBe(full(cwd, withEnv));
    mkdirSync(join(cwd, 'config', 'autodeck'), { recursive: true });
    writeFileSync(join(cwd, 'config', 'autodeck', 'config.json'), JSON.stringify({ db: 'user.db' }));
    expect(quickDbPath(undefined, env, cwd)).toBe(full(cwd, env));
    expect(quickDbPath(undefined, env, cwd)).toBe(join(cwd, 'config', 'autodeck', 'user.db'));
    writeFileSync(join(cwd, '.autodeck.json'), JSON.stringify({ db: 'project.db', maxIterations: 5 }));
    expect(quickDbPath(undefined, env, cwd)).toBe(full(cwd, env));
    writeFileSync(join(cwd, '.autodeck.json'), '{broken');
    expect(quickDbPath(undefined, env, cwd)).toBeUndefined(); // the full path reports it
  });
});

describe('notifications say a loop needs you, and why', () => {
  it('a needs_you event gives an input notification with the prompt; the payload carries the exact command', async () => {
    const { notificationFor } = await import('../../src/notify/decide.js');
    const { payloadFor } = await import('../../src/notify/payload.js');
    const e = {
      at: '2026-11-23T05:00:00.000Z', session: 'auto-asks', taskDir: '/ws/AiTasks/asks', taskName: 'asks', kind: 'needs_you' as const,
      detail: { reason: 'permission', text: 'Bash: docker system prune -af — Do you want to proceed?', rule: 'ask Bash(docker *)', tool: 'Bash', command: 'docker system prune -af' },
    };
    const n = notificationFor(e)!;
    expect(n).toMatchObject({ topic: 'input', text: 'autodeck: asks needs you (permission): Bash: docker system prune -af — Do you want to proceed?' });
    expect(payloadFor(e, n, { host: 'box' })).toMatchObject({ reason: 'permission', tool: 'Bash', command: 'docker system prune -af', question: 'Bash: docker system prune -af — Do you want to proceed?' });
    const q = { ...e, detail: { reason: 'question', text: 'Which database should the service use?' } };
    expect(notificationFor(q)!.text).toBe('autodeck: asks needs you (question): Which database should the service use?');
    expect(payloadFor(q, notificationFor(q)!, { host: 'box' }).reason).toBe('question');
  });
});

describe('approval and needs_you events in the log', () => {
  it('read as one line each, printable', async () => {
    const { formatEvent } = await import('../../src/format/event.js');
    const at = '2026-11-23T05:00:00.000Z';
    const base = { at, session: 's', taskDir: '/ws/AiTasks/m' };
    expect(formatEvent({ ...base, kind: 'approval', detail: { decision: 'deny', rule: 'built-in git-push-force', tool: 'Bash', command: 'git push -f\u001b[2J', keys: '\\u001b' } }))
      .toMatch(/ {2}m {2}approval {2}refused Bash git push -f\\x1b\[2J \(built-in git-push-force\): sent \\u001b$/);
    expect(formatEvent({ ...base, kind: 'needs_you', detail: { reason: 'answer_not_taken', text: 'Bash: make' } })).toMatch(/needs you \(answer not taken\): Bash: make$/);
  });
});
