import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_TASK_FILE_BYTES, parseChecklist, parsePlan, readTasks, summarize, tasksFromTexts } from '../../src/hooks/tasks.js';

describe('parseChecklist', () => {
  it('reads [{id, subject, status}] with the terminal statuses as done', () => {
    const text = JSON.stringify([
      { id: 1, subject: 'a', status: 'completed' }, { id: 2, subject: 'b', status: 'done' }, { id: 3, subject: 'c', status: 'cancelled' },
      { id: 4, subject: 'd', status: 'skipped' }, { id: 5, subject: 'e', status: 'in_progress' }, { id: 6, subject: 'f', status: 'pending' },
      { id: 7, subject: 'g' }, { id: 8, subject: 'h', status: 'DONE' },
    ]);
    expect(parseChecklist(text).map((t) => `${t.subject}:${t.done}`)).toEqual(
      ['a:true', 'b:true', 'c:true', 'd:true', 'e:false', 'f:false', 'g:false', 'h:true']);
  });

  it('names an item by subject, else content, title or id', () => {
    const text = JSON.stringify([{ content: 'from content' }, { title: 'from title' }, { id: 'T-9' }, { id: 12 }, {}, { subject: '  two\n lines ' }]);
    expect(parseChecklist(text).map((t) => t.subject)).toEqual(['from content', 'from title', 'T-9', '12', 'task 5', 'two lines']);
  });

  it.each([
    ['not JSON', '{oops'], ['an object', '{"tasks": []}'], ['a string', '"x"'], ['null', 'null'], ['empty', ''],
  ])('%s gives no tasks', (_, text) => {
    expect(parseChecklist(text)).toEqual([]);
  });

  it('skips items that are not objects', () => {
    expect(parseChecklist('[1, "x", null, [], {"subject": "real", "status": "done"}]')).toEqual([{ subject: 'real', done: true }]);
  });
});

describe('parsePlan', () => {
  it('reads - [ ] as open and - [x] / - [X] as done, with * and + bullets too', () => {
    const text = [
      '# Plan', '', '- [ ] open one', '- [x] done one', '- [X] done two', '* [ ] star open', '* [x] star done', '+ [ ] plus open',
      '  - [ ] indented open', 'Some prose with - [ ] in the middle', '-[ ] no space: not a task', '- [] empty box: not a task',
      '- [y] other mark: not a task', '1. [ ] numbered: not a task', '- [ ]',
    ].join('\n');
    expect(parsePlan(text).map((t) => `${t.done ? 'x' : ' '} ${t.subject}`)).toEqual([
      '  open one', 'x done one', 'x done two', '  star open', 'x star done', '  plus open', '  indented open', '  task 8',
    ]);
  });

  it('handles CRLF line ends', () => {
    expect(parsePlan('- [ ] a\r\n- [x] b\r\n')).toEqual([{ subject: 'a', done: false }, { subject: 'b', done: true }]);
  });

  it('ignores checkboxes inside fenced code blocks', () => {
    const text = ['- [ ] real', '```md', '- [ ] example', '~~~', '- [x] still an example', '```', '~~~', '- [x] not closed by ```', '~~~', '- [x] real too'].join('\n');
    expect(parsePlan(text).map((t) => t.subject)).toEqual(['real', 'real too']);
  });
});

describe('summarize and tasksFromTexts', () => {
  it('counts and lists what remains in order', () => {
    expect(summarize([{ subject: 'a', done: true }, { subject: 'b', done: false }, { subject: 'c', done: false }]))
      .toEqual({ total: 3, completed: 1, remaining: ['b', 'c'] });
  });
  it('adds both sources; either may be absent or malformed', () => {
    const checklist = JSON.stringify([{ id: 1, subject: 'c1', status: 'done' }, { id: 2, subject: 'c2', status: 'pending' }]);
    expect(tasksFromTexts(checklist, '- [x] p1\n- [ ] p2\n')).toEqual({ total: 4, completed: 2, remaining: ['c2', 'p2'] });
    expect(tasksFromTexts('{bad', '- [ ] p\n')).toEqual({ total: 1, completed: 0, remaining: ['p'] });
    expect(tasksFromTexts(undefined, undefined)).toEqual({ total: 0, completed: 0, remaining: [] });
  });
});

describe('readTasks', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the files of a module and never throws', () => {
    dir = mkdtempSync(join(tmpdir(), 'autodeck-tasks-'));
    expect(readTasks(dir)).toEqual({ total: 0, completed: 0, remaining: [] });
    writeFileSync(join(dir, '.checklist.json'), JSON.stringify([{ id: 1, subject: 'one', status: 'completed' }]));
    writeFileSync(join(dir, '.plan.md'), '- [ ] two\n');
    expect(readTasks(dir)).toEqual({ total: 2, completed: 1, remaining: ['two'] });
    expect(readTasks(join(dir, 'missing'))).toEqual({ total: 0, completed: 0, remaining: [] });
  });

  it('a folder where a file should be, or a huge file, counts as no tasks', () => {
    dir = mkdtempSync(join(tmpdir(), 'autodeck-tasks-'));
    mkdirSync(join(dir, '.checklist.json'));
    writeFileSync(join(dir, '.plan.md'), `- [ ] x\n${' '.repeat(MAX_TASK_FILE_BYTES)}`);
    expect(readTasks(dir)).toEqual({ total: 0, completed: 0, remaining: [] });
  });
});
