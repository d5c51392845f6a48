import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { BIN } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { Store } from '../../src/store/index.js';
import { ClaudeRequestStore } from '../../src/claudeSessions/requests.js';
import { ClaudeAdoptedStore } from '../../src/claudeSessions/adopted.js';

// `autodeck hook permission` as Claude Code runs it (a real process, the event on stdin, a
// real database), for sessions autodeck did not start: it records the request, lets the
// approval policy answer what a rule names, waits for a person's answer otherwise, and
// gives up quietly when the dialog was answered in the session itself.

let ws: Workspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const SESSION = '0b3a1f2e-1111-4222-8333-944445555666';

interface Hooked {
  configDir: string;
  env: NodeJS.ProcessEnv;
  /** The session's running file, as Claude Code writes it (`status` waiting while the dialog is up). */
  setStatus(status: string): void;
  run(event: Record<string, unknown>, extraEnv?: NodeJS.ProcessEnv): { done: Promise<{ code: number; stdout: string }> };
}

function setup(w: Workspace, background: boolean): Hooked {
  const configDir = join(w.dir, 'claude-config');
  mkdirSync(join(configDir, 'sessions'), { recursive: true });
  const setStatus = (status: string) => writeFileSync(join(configDir, 'sessions', `${process.pid}.json`), JSON.stringify({ pid: process.pid, sessionId: SESSION, status, kind: background ? 'bg' : 'interactive' }));
  setStatus('waiting');
  const env: NodeJS.ProcessEnv = { ...w.env, CLAUDE_CONFIG_DIR: configDir, AUTODECK_DB: w.db, ...(background ? { CLAUDE_JOB_DIR: join(configDir, 'jobs', '0b3a1f2e') } : {}) };
  return {
    configDir, env, setStatus,
    run(event, extraEnv = {}) {
      const child = spawn(process.execPath, [BIN, 'hook', 'permission'], { cwd: w.dir, env: { ...env, ...extraEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stdin.end(JSON.stringify(event));
      return { done: new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout: out }))) };
    },
  };
}

const bash = (command: string) => ({
  session_id: SESSION, cwd: '/tmp', hook_event_name: 'PermissionRequest', permission_mode: 'default', tool_name: 'Bash', tool_input: { command, description: 'x' },
});

const openRequest = async (db: string) => waitFor(() => {
  const store = Store.open(db);
  try {
    return new ClaudeRequestStore(store.db).open()[0];
  } finally {
    store.close();
  }
}, 'the hook to record its request', 20_000, 50);

describe('autodeck hook permission', () => {
  it('a person answers through autodeck: the hook prints the allow, and the request is closed', async () => {
    ws = makeWorkspace();
    const h = setup(ws, true);
    const run = h.run(bash('make deploy'));
    const req = await openRequest(ws.db);
    expect(req).toMatchObject({ sessionId: SESSION, jobId: '0b3a1f2e', kind: 'permission', tool: 'Bash', text: 'Bash: make deploy' });
    const store = Store.open(ws.db);
    try {
      expect(new ClaudeRequestStore(store.db).answer(req.id, { behavior: 'allow' }, 'a person', new Date().toISOString())).toBe(true);
      // a second answer does not take
      expect(new ClaudeRequestStore(store.db).answer(req.id, { behavior: 'deny' }, 'someone else', new Date().toISOString())).toBe(false);
    } finally {
      store.close();
    }
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    const after = Store.open(ws.db);
    try {
      expect(new ClaudeRequestStore(after.db).get(req.id)).toMatchObject({ answeredBy: 'a person', closedHow: 'answered' });
      expect(after.events.list(10).filter((e) => e.kind === 'approval').map((e) => e.detail)).toEqual([expect.objectContaining({ decision: 'allow', tool: 'Bash', command: 'make deploy' })]);
    } finally {
      after.close();
    }
  });

  it('a background session: a deny rule answers at once, with the reason for the model', async () => {
    ws = makeWorkspace();
    writeFileSync(join(ws.dir, '.autodeck.json'), JSON.stringify({ approval: { rules: [{ deny: 'Bash(rm -rf *)', reason: 'never wipe folders' }] } }));
    const h = setup(ws, true);
    const r = await h.run({ ...bash('rm -rf build'), cwd: ws.dir }).done;
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { decision: { behavior: string; message: string } } };
    expect(out.hookSpecificOutput.decision.behavior).toBe('deny');
    expect(out.hookSpecificOutput.decision.message).toContain('never wipe folders');
  });

  it('a background session not adopted: what no rule names waits for a person (not the default allow); adopted: the default allows', async () => {
    ws = makeWorkspace();
    const h = setup(ws, true);
    const waiting = h.run({ ...bash('make build'), cwd: ws.dir });
    const req = await openRequest(ws.db);
    expect(req.answer).toBeUndefined();
    // the dialog was answered in the session itself (a person at `claude attach`): the hook gives up, printing nothing
    h.setStatus('busy');
    expect(await waiting.done).toEqual({ code: 0, stdout: '' });

    const store = Store.open(ws.db);
    try {
      expect(new ClaudeRequestStore(store.db).get(req.id)!.closedHow).toBe('answered in the session');
      new ClaudeAdoptedStore(store.db).insert({ sessionId: SESSION, shortId: '0b3a1f2e', name: 'x', cwd: ws.dir, maxIterations: 5, timeoutMinutes: 10, settings: {}, startedAt: new Date().toISOString(), ownerPid: process.pid, ownerHost: 'h', ownerHeartbeatAt: null });
    } finally {
      store.close();
    }
    h.setStatus('waiting');
    const adopted = await h.run({ ...bash('make build'), cwd: ws.dir }).done;
    expect(JSON.parse(adopted.stdout).hookSpecificOutput.decision).toEqual({ behavior: 'allow' });
  });

  it('a question is answered with the chosen option, as AskUserQuestion\'s answers', async () => {
    ws = makeWorkspace();
    const h = setup(ws, false);
    const questions = [{ question: 'Which colour?', header: 'Colour', options: [{ label: 'Red', description: '' }, { label: 'Blue', description: '' }], multiSelect: false }];
    const run = h.run({ session_id: SESSION, cwd: ws.dir, hook_event_name: 'PermissionRequest', tool_name: 'AskUserQuestion', tool_input: { questions } });
    const req = await openRequest(ws.db);
    expect(req).toMatchObject({ kind: 'question', text: 'question: Which colour? (Red · Blue)' });
    const { questionAnswer } = await import('../../src/claudeSessions/requests.js');
    const store = Store.open(ws.db);
    try {
      new ClaudeRequestStore(store.db).answer(req.id, questionAnswer(req.request, { text: 'Blue' }), 'a person', new Date().toISOString());
    } finally {
      store.close();
    }
    const out = JSON.parse((await run.done).stdout);
    expect(out.hookSpecificOutput.decision).toEqual({ behavior: 'allow', updatedInput: { questions, answers: { 'Which colour?': 'Blue' } } });
  });

  it('stands aside in a session of autodeck\'s own loop, and on anything that is not a PermissionRequest', async () => {
    ws = makeWorkspace();
    const h = setup(ws, true);
    expect(await h.run(bash('make'), { AUTODECK_SESSION: 'auto-x' }).done).toEqual({ code: 0, stdout: '' });
    expect(await h.run({ ...bash('make'), hook_event_name: 'PreToolUse' }).done).toEqual({ code: 0, stdout: '' });
    const store = Store.open(ws.db);
    try {
      expect(new ClaudeRequestStore(store.db).recent(SESSION)).toEqual([]);
    } finally {
      store.close();
    }
  });
});
