import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { Store } from '../../src/store/index.js';
import { ClaudeWatch } from '../../src/claudeSessions/watch.js';
import type { RunProgram } from '../../src/claudeSessions/reader.js';

// The watch of Claude Code's sessions, with Claude Code's files in a temp folder and its
// `claude agents --json` played by a stand-in that counts its calls: nothing runs while
// there are no session files, a call only follows a change, a failed look keeps the rows,
// and a change is recorded once however many autodecks watch.

let ws: Workspace | undefined;
const stores: Store[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  ws?.cleanup();
  ws = undefined;
});

interface Stand {
  run: RunProgram;
  calls: () => number;
  answer: (text: string, code?: number) => void;
}

function standIn(): Stand {
  let calls = 0;
  let reply = { code: 0, stdout: '[]', stderr: '' };
  return {
    run: async (_file, args) => {
      expect(args).toEqual(['agents', '--json', '--all']);
      calls++;
      return reply;
    },
    calls: () => calls,
    answer: (text, code = 0) => {
      reply = { code, stdout: code === 0 ? text : '', stderr: code === 0 ? '' : text };
    },
  };
}

function open(w: Workspace): Store {
  const s = Store.open(w.db);
  stores.push(s);
  return s;
}

const waiting = (pid: number) => JSON.stringify([{ pid, id: 'ab12cd34', sessionId: 'ab12cd34-0000-4000-8000-000000000001', cwd: '/p', kind: 'background', name: 'task', status: 'waiting', waitingFor: 'permission prompt', state: 'blocked' }]);

describe('watching Claude Code\'s sessions', () => {
  it('runs nothing while Claude Code has no session files; asks once they appear, and again only after a change', async () => {
    ws = makeWorkspace();
    const config = join(ws.dir, 'claude');
    const stand = standIn();
    const watch = new ClaudeWatch({ store: open(ws), program: 'claude', configDir: config, run: stand.run });
    for (let i = 0; i < 5; i++) watch.look();
    expect(stand.calls()).toBe(0);
    expect(watch.snapshot().entries).toEqual([]);

    mkdirSync(join(config, 'sessions'), { recursive: true });
    writeFileSync(join(config, 'sessions', `${process.pid}.json`), '{}');
    stand.answer(waiting(process.pid));
    watch.look();
    await watch.settled();
    expect(stand.calls()).toBe(1);
    expect(watch.snapshot().entries.map((e) => e.view.word)).toEqual(['needs you']);
    for (let i = 0; i < 5; i++) watch.look();
    expect(stand.calls()).toBe(1);

    // the session's file rewritten (a status change): asked again
    utimesSync(join(config, 'sessions', `${process.pid}.json`), new Date(), new Date(Date.now() + 5000));
    watch.look();
    await watch.settled();
    expect(stand.calls()).toBe(2);
    watch.close();
  });

  it('keeps the rows it had when a look fails, and says why', async () => {
    ws = makeWorkspace();
    const config = join(ws.dir, 'claude');
    mkdirSync(join(config, 'jobs'), { recursive: true });
    const stand = standIn();
    stand.answer(waiting(process.pid));
    const watch = new ClaudeWatch({ store: open(ws), program: 'claude', configDir: config, run: stand.run });
    await watch.refresh();
    expect(watch.snapshot().entries).toHaveLength(1);
    stand.answer('Error: something broke', 1);
    await watch.refresh();
    expect(watch.snapshot().entries).toHaveLength(1);
    expect(watch.snapshot().note).toMatch(/exited 1: Error: something broke/);
    stand.answer('not json at all');
    await watch.refresh();
    expect(watch.snapshot().entries).toHaveLength(1);
    expect(watch.snapshot().note).toMatch(/did not print JSON/);
    watch.close();
  });

  it('a listed session whose process died is noticed without any file changing', async () => {
    ws = makeWorkspace();
    const config = join(ws.dir, 'claude');
    mkdirSync(join(config, 'jobs'), { recursive: true });
    const stand = standIn();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    stand.answer(waiting(child.pid!));
    const watch = new ClaudeWatch({ store: open(ws), program: 'claude', configDir: config, run: stand.run });
    await watch.refresh();
    for (let i = 0; i < 3; i++) watch.look();
    expect(stand.calls()).toBe(1);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    stand.answer('[]');
    watch.look();
    await watch.settled();
    expect(stand.calls()).toBe(2);
    expect(watch.snapshot().entries).toEqual([]);
    watch.close();
  });

  it('a change is recorded once, however many autodecks watch; an unchanged list tells no one', async () => {
    ws = makeWorkspace();
    const config = join(ws.dir, 'claude');
    mkdirSync(join(config, 'jobs'), { recursive: true });
    const a = standIn();
    const b = standIn();
    a.answer(waiting(process.pid));
    b.answer(waiting(process.pid));
    const heard: string[] = [];
    const one = new ClaudeWatch({ store: open(ws), program: 'claude', configDir: config, run: a.run });
    const two = new ClaudeWatch({ store: open(ws), program: 'claude', configDir: config, run: b.run });
    one.on('event', (e) => heard.push(`one ${e.kind}`));
    two.on('event', (e) => heard.push(`two ${e.kind}`));
    let changes = 0;
    one.on('change', () => changes++);
    await one.refresh();
    await two.refresh();
    expect(heard).toEqual(['one needs_you']);
    expect(open(ws).events.list(10).filter((e) => e.taskDir === 'claude:ab12cd34-0000-4000-8000-000000000001').map((e) => e.kind)).toEqual(['needs_you']);
    await one.refresh();
    expect(changes).toBe(1);
    one.close();
    two.close();
    rmSync(config, { recursive: true, force: true });
  });
});
