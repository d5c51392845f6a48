import { afterEach, describe, expect, it } from 'vitest';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags } from '../helpers/cli.js';
import { Store } from '../../src/store/index.js';

// Nothing that does not exist succeeds: a module that is not there, a database in a folder
// that is not there, a database that cannot be used. Each is one line, naming what is
// wrong and what to do, with its exit code; nothing is created on the way.

let ws: Workspace;
afterEach(() => ws?.cleanup());

const oneLine = (stderr: string): string => {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return lines[0]!;
};

describe('a task module that is not there', () => {
  it('log, history, stop and lookup say so with exit 2: a path that does not exist, a folder that is no module', async () => {
    ws = makeWorkspace();
    for (const command of ['log', 'history', 'stop', 'lookup']) {
      const nope = await runCli(ws, [command, 'AiTasks/nope', '--db', ws.db]);
      expect(nope.code, command).toBe(2);
      expect(oneLine(nope.stderr)).toBe(`autodeck ${command}: AiTasks/nope does not exist, and no loop has run there; autodeck status lists the loops`);
      expect(nope.stdout).toBe('');
      const folder = await runCli(ws, [command, 'AiTasks', '--db', ws.db]);
      expect(folder.code, command).toBe(2);
      expect(oneLine(folder.stderr)).toMatch(new RegExp(`^autodeck ${command}: AiTasks is not a task module \\(it has none of \\.index\\.json`));
    }
    expect(existsSync(join(ws.root, 'nope'))).toBe(false);
  });

  it('a module with nothing recorded yet is said to be empty; one whose folder is gone since its run is still found', async () => {
    ws = makeWorkspace();
    const dir = ws.module('quick', { scenario: { stepSeconds: 0.02 } });
    const empty = await runCli(ws, ['log', dir, '--db', ws.db]);
    expect(empty.code).toBe(0);
    expect(oneLine(empty.stderr)).toMatch(/^autodeck log: no events for .*quick yet/);
    expect((await runCli(ws, ['history', dir, '--db', ws.db])).stdout).toMatch(/^No finished runs of .*quick yet\./);
    expect((await runCli(ws, ['stop', dir, '--db', ws.db])).code).toBe(1); // a module, no loop: nothing found

    expect((await runCli(ws, ['run', dir, ...runFlags(ws)])).code).toBe(0);
    rmSync(dir, { recursive: true, force: true });
    const history = await runCli(ws, ['history', dir, '--db', ws.db]);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toMatch(/quick .*1 finished run/);
    expect((await runCli(ws, ['log', dir, '--db', ws.db, '--last', '1'])).stdout).toMatch(/ended/);
  });
});

describe('a database that cannot be used', () => {
  it('--db in a folder that does not exist is a usage error, and the folder is not made', async () => {
    ws = makeWorkspace();
    const db = join(ws.dir, 'no', 'such', 'state.db');
    for (const args of [['status'], ['status', '--json'], ['status', '--format', 'tmux'], ['log'], ['run', ws.module('m')]]) {
      const r = await runCli(ws, [...args, '--db', db]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(oneLine(r.stderr)).toBe(`autodeck: --db: the folder ${join(ws.dir, 'no', 'such')} does not exist; create it first, or choose another path`);
    }
    // from the environment too, named as such
    const env = await runCli(ws, ['status'], { env: { AUTODECK_DB: db } });
    expect(env.code).toBe(2);
    expect(oneLine(env.stderr)).toMatch(/^autodeck: AUTODECK_DB: the folder .* does not exist/);
    expect(existsSync(join(ws.dir, 'no'))).toBe(false);
  });

  it('a file that is no database, a damaged one, one from a newer autodeck: exit 4, the file named, what to do, the file untouched', async () => {
    ws = makeWorkspace();
    const notADb = join(ws.dir, 'notes.db');
    writeFileSync(notADb, 'my notes, not a database\n'.repeat(200));
    const damaged = join(ws.dir, 'damaged.db');
    Store.open(damaged).close();
    const fd = openSync(damaged, 'r+');
    writeSync(fd, Buffer.alloc(3000, 0xab), 0, 3000, 100); // the schema's page, past the header
    closeSync(fd);
    const newer = join(ws.dir, 'newer.db');
    Store.open(newer).close();
    const raw = new Database(newer);
    raw.pragma('user_version = 999');
    raw.close();

    const cases: [string, RegExp][] = [
      [notADb, /is not a SQLite database \(file is not a database\); move it aside \(mv \S+notes\.db \S+notes\.db\.broken\) and autodeck starts a new one\. autodeck doctor checks it$/],
      [damaged, /is damaged \(database disk image is malformed\); move it aside/],
      [newer, /was written by a newer autodeck \(schema 999, this one knows \d+\); update autodeck, or choose another --db\. autodeck doctor checks it$/],
    ];
    for (const [db, message] of cases) {
      const before = readFileSync(db);
      for (const args of [['status'], ['log'], ['history'], ['run', ws.module('m'), ...runFlags(ws).slice(2)]]) {
        const r = await runCli(ws, [...args, '--db', db]);
        expect(r.code, `${args[0]} on ${db}: ${r.stderr}`).toBe(4);
        const said = oneLine(r.stderr);
        expect(said.startsWith(`autodeck: the state database ${db} `), said).toBe(true);
        expect(said).toMatch(message);
      }
      expect(readFileSync(db).equals(before), db).toBe(true);
    }
  });
});
