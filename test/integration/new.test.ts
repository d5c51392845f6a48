import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags } from '../helpers/cli.js';
import { loopRow, runsOf } from '../helpers/db.js';
import { targetTemplate } from '../../src/protocol/target.js';

// `autodeck new` through the built CLI, in a throwaway project; then `autodeck run` on what it made.

let ws: Workspace;
afterEach(() => ws?.cleanup());

describe('autodeck new', () => {
  it('creates a draft module that run refuses until its target says something, then runs it', async () => {
    ws = makeWorkspace('autodeck-new-');
    rmSync(ws.root, { recursive: true }); // the root is made when missing
    const r = await runCli(ws, ['new', 'demo-task', '--title', 'Make the demo work']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe([
      'created AiTasks/demo-task/.index.json',
      'created AiTasks/demo-task/.target.md',
      'next: edit AiTasks/demo-task/.target.md, then `autodeck run AiTasks/demo-task` or press s on it in the dashboard',
      '',
    ].join('\n'));
    const dir = join(ws.root, 'demo-task');
    const index = JSON.parse(readFileSync(join(dir, '.index.json'), 'utf8')) as Record<string, unknown>;
    expect(index).toEqual({ title: 'Make the demo work', status: 'draft', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    const target = readFileSync(join(dir, '.target.md'), 'utf8');
    expect(target).toBe(targetTemplate('Make the demo work'));
    expect(target).toMatch(/^# Make the demo work\n[\s\S]*## Goal\n[\s\S]*## Acceptance criteria\n[\s\S]*## Notes\n/);
    // written atomically: no temporary file is left behind
    expect(readdirSync(dir).sort()).toEqual(['.index.json', '.target.md']);

    // the simulated agent's own pace (its file, not part of the target)
    writeFileSync(join(dir, '.sim.json'), JSON.stringify({ stepSeconds: 0.05 }));
    const refused = await runCli(ws, ['run', 'AiTasks/demo-task', ...runFlags(ws)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe('autodeck: demo-task: fill .target.md first');
    expect(loopRow(ws.db, dir)).toBeUndefined();

    appendFileSync(join(dir, '.target.md'), 'The demo prints "hello".\n');
    const ran = await runCli(ws, ['run', 'AiTasks/demo-task', ...runFlags(ws)]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
  });

  it('takes NAME as the title by default and uses the first root', async () => {
    ws = makeWorkspace('autodeck-new-');
    const other = join(ws.dir, 'Other');
    const r = await runCli(ws, ['new', 'x1', '--root', other, '--root', ws.root]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(other, 'x1', '.index.json'), 'utf8'))).toMatchObject({ title: 'x1', status: 'draft' });
    expect(readFileSync(join(other, 'x1', '.target.md'), 'utf8')).toMatch(/^# x1\n/);
    expect(existsSync(join(ws.root, 'x1'))).toBe(false);
  });

  it('refuses a bad name, a bad title, a taken name: one line, exit 2, nothing written', async () => {
    ws = makeWorkspace('autodeck-new-');
    mkdirSync(join(ws.root, 'taken'));
    writeFileSync(join(ws.root, 'taken', 'notes.txt'), 'mine');
    const cases: [string[], RegExp][] = [
      [['new'], /^autodeck: new needs NAME: autodeck new NAME \[flags\]$/],
      [['new', ''], /^autodeck new: the module name is empty$/],
      [['new', '..'], /^autodeck new: a module name is letters, digits/],
      [['new', '.hidden'], /^autodeck new: a module name is letters, digits/],
      [['new', 'a/b'], /^autodeck new: a module name is one folder name, without "\/"/],
      [['new', '../escape'], /^autodeck new: a module name is one folder name/],
      [['new', 'sp ace'], /^autodeck new: a module name is letters, digits/],
      [['new', 'x'.repeat(65)], /^autodeck new: a module name is at most 64 characters/],
      [['new', 'a', 'b'], /^autodeck: new takes one NAME \(got 2: "a" "b"\)/],
      [['new', 'ok', '--title', 'two\nlines'], /^autodeck new: the title is one line of text/],
      [['new', 'ok', '--title', '  '], /^autodeck new: the title is empty$/],
      [['new', 'taken'], /^autodeck new: AiTasks\/taken already exists; pick another name$/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(ws, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr.trim(), args.join(' ')).toMatch(message);
      expect(r.stdout).toBe('');
    }
    expect(readdirSync(ws.root).sort()).toEqual(['taken']);
    expect(readdirSync(join(ws.root, 'taken'))).toEqual(['notes.txt']);
    expect(existsSync(join(ws.dir, 'escape'))).toBe(false);
  });
});
