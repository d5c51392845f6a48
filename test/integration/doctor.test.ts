import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli } from '../helpers/cli.js';
import { Store } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';

// `autodeck doctor` as a user runs it: a `claude` on PATH that prints a version, the state
// database as it is on disk; nothing is changed by it.

let ws: Workspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** A workspace whose PATH starts with a `claude` that prints `version` (a script standing in for the real one). */
function withClaude(version: string | undefined): NodeJS.ProcessEnv {
  ws = makeWorkspace('autodeck-doctor-');
  const bin = join(ws.dir, 'bin');
  mkdirSync(bin);
  if (version !== undefined) writeFileSync(join(bin, 'claude'), `#!/bin/sh\necho '${version}'\n`, { mode: 0o755 });
  return { PATH: `${bin}${delimiter}/usr/bin${delimiter}/bin` };
}

describe('autodeck doctor', () => {
  it('a Claude Code inside the tested range, no database yet: all is well (exit 0)', async () => {
    const env = withClaude('2.1.250 (Claude Code)');
    const r = await runCli(ws!, ['doctor', '--db', ws!.db], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ok   Claude Code 2.1.250: inside the tested range, 2.1.197 to 2.1.332');
    // below 2.1.295 there is no OSC 7501 status: said, not a fault
    expect(r.stdout).toMatch(/OSC 7501 status sequences .*: not in this version \(2\.1\.295 and later\)/);
    expect(r.stdout).toContain(`ok   state database ${ws!.db}: not there yet`);
  });

  it('older and newer than the range: exit 1, with what will not work', async () => {
    let env = withClaude('2.0.77 (Claude Code)');
    let r = await runCli(ws!, ['doctor', '--db', ws!.db], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('fix  Claude Code 2.0.77: outside the tested range, 2.1.197 to 2.1.332');
    expect(r.stdout).toMatch(/older than 2\.1\.197/);
    ws!.cleanup();
    env = withClaude('2.2.3 (Claude Code)');
    r = await runCli(ws!, ['doctor', '--db', ws!.db], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/newer than 2\.1\.332.*needs you/);
    expect(r.stdout).toMatch(/approval policy still holds/);
  });

  it('no claude on PATH: exit 1, what to do', async () => {
    const env = withClaude(undefined);
    const r = await runCli(ws!, ['doctor', '--db', ws!.db], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('fix  agent program "claude" not found (profile claude)');
  });

  it('the state database: opens read-only and says its schema; a damaged file is named; --json', async () => {
    const env = withClaude('2.1.332 (Claude Code)');
    Store.open(ws!.db).close();
    const r = await runCli(ws!, ['doctor', '--db', ws!.db, '--json'], { env });
    expect(r.code, r.stdout).toBe(0);
    const out = JSON.parse(r.stdout) as { ok: boolean; range: unknown; checks: { name: string; ok: boolean; summary: string; version?: string; verdict?: string }[] };
    expect(out.range).toEqual({ oldest: '2.1.197', newest: '2.1.332' });
    expect(out.checks.find((c) => c.name === 'claude')).toMatchObject({ ok: true, version: '2.1.332', verdict: 'inside' });
    expect(out.checks.find((c) => c.name === 'database')!.summary).toBe(`state database ${ws!.db}: opens (schema ${MIGRATIONS.length})`);

    writeFileSync(ws!.db, 'not a database, just text that is long enough to have a header of sorts..........................');
    const bad = await runCli(ws!, ['doctor', '--db', ws!.db], { env });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(new RegExp(`fix  state database ${ws!.db.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} (?:does not open|is damaged)`));
  });
});
