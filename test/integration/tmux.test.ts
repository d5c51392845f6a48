import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attachTmuxSession, EXIT_POLL_MS, spawnTmuxSession, tmuxFactory, VANISHED_EXIT_CODE } from '../../src/sessions/tmux.js';
import { killTmuxServer, listTmuxSessions, tmuxAvailable, tmuxSessionExists, type TmuxOptions } from '../../src/sessions/tmuxServer.js';
import type { Session, SessionExit } from '../../src/sessions/session.js';
import { waitFor } from '../helpers/wait.js';
import { envWithoutTmux } from '../helpers/tmux.js';

// Real tmux servers, each test on its own socket (never the user's, never `autodeck`),
// killed after the test. Programs are node scripts run without a shell. No timed
// assertions: states are waited for.

const check = tmuxAvailable();
if (!check.ok) console.warn(`tmux backend tests skipped: ${check.message}`);

const NODE = process.execPath;
const sockets: string[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const socket of sockets.splice(0)) killTmuxServer({ socket });
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmuxOpts(): TmuxOptions {
  const socket = `adt-test-${process.pid}-${sockets.length}-${Math.random().toString(36).slice(2, 8)}`;
  sockets.push(socket);
  return { socket };
}

function tempDir(name = 'work'): string {
  const top = mkdtempSync(join(tmpdir(), 'adt-tmux-test-'));
  dirs.push(top);
  const dir = join(top, name);
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

/** Prints READY, then each chunk read from stdin; EOF -> "EOF", exit 3; prints its size on SIGWINCH. */
const READER = `
console.log('READY ' + process.argv.slice(2).join(' '));
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => console.log('got ' + JSON.stringify(d)));
process.stdin.on('end', () => { console.log('EOF'); process.exit(3); });
process.stdout.on('resize', () => console.log('size ' + process.stdout.columns + 'x' + process.stdout.rows));
`;

/** Writes its argv, cwd and environment as JSON to the file named by its first argument, then waits. */
const REPORTER = `
const out = process.argv[2];
require('fs').writeFileSync(out + '.tmp', JSON.stringify({ argv: process.argv.slice(3), cwd: process.cwd(), env: process.env }));
require('fs').renameSync(out + '.tmp', out);
setInterval(() => {}, 1000);
`;

function script(dir: string, name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const screenText = (s: Session) => s.screen().join('\n');

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function exits(s: Session): SessionExit[] {
  const seen: SessionExit[] = [];
  s.onExit((e) => seen.push(e));
  return seen;
}

/** Some poll rounds, to see that nothing more is reported. */
const pollRounds = (n = 3) => new Promise((r) => setTimeout(r, EXIT_POLL_MS * n + 50));

interface Report { argv: string[]; cwd: string; env: Record<string, string> }
const readReport = (p: string): Report | undefined => (existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as Report) : undefined);

describe.skipIf(!check.ok)(`tmux backend${check.ok ? ` (${check.version})` : ` (skipped: ${check.ok === false ? check.message : ''})`}`, () => {
  it('runs a program without a shell and captures its screen as text', async () => {
    const o = tmuxOpts();
    const dir = tempDir();
    const s = spawnTmuxSession({ name: 'auto-screen-000001', argv: [NODE, '-e', 'console.log("hello from tmux ❯ 5-hour limit ∙ 日本"); setInterval(() => {}, 1000)'], cwd: dir, env: envWithoutTmux(), cols: 60, rows: 10 }, o);
    expect(s.backend).toBe('tmux');
    await waitFor(() => screenText(s).includes('hello from tmux ❯ 5-hour limit ∙ 日本'), 'the program output');
    const screen = s.screen();
    expect(screen).toHaveLength(10);
    expect(screen[0]).toBe('hello from tmux ❯ 5-hour limit ∙ 日本');
    // The pane's process is node itself: tmux exec'd the words, no shell in between.
    expect(readFileSync(`/proc/${s.pid}/cmdline`, 'utf8').split('\0')[0]).toBe(NODE);
    expect(s.exited).toBe(false);
    s.dispose();
  });

  it('passes hostile argv words and a hostile cwd intact, and runs none of them', async () => {
    const o = tmuxOpts();
    const dir = tempDir(`cwd it's #(touch pwned-c1) #{pane_id} $(touch pwned-c2) x;`);
    const reporter = script(dir, 'reporter.cjs', REPORTER);
    const out = join(dir, 'report.json');
    const words = [
      `it's "odd" $(touch ${dir}/pwned) \`touch ${dir}/pwned2\``,
      'x;', ';', '\\;', 'a\\\\;', `#{pane_id} #(touch ${dir}/pwned3)`, '', ' spaced  ', 'line\nbreak', '-e', '--', '{', '}', '~', '*', 'é❯',
    ];
    const s = spawnTmuxSession({ name: 'auto-argv-000002', argv: [NODE, reporter, out, ...words], cwd: dir, env: envWithoutTmux() }, o);
    const report = await waitFor(() => readReport(out), 'the report');
    expect(report.argv).toEqual(words);
    expect(report.cwd).toBe(dir);
    const pwned = (d: string) => readdirSync(d).filter((f) => f.startsWith('pwned'));
    expect(pwned(dir)).toEqual([]);
    expect(pwned(join(dir, '..'))).toEqual([]);
    expect(pwned(process.cwd())).toEqual([]);
    s.dispose();
  });

  it('runs a one-word argv (a path with spaces and quotes) without a shell parsing it', async () => {
    const o = tmuxOpts();
    const dir = tempDir(`one 'two' "three" $(touch pwned) ;`);
    const program = script(dir, 'agent it\'s.sh', '#!/bin/sh\necho "args=$# pid=$$" > "$(dirname "$0")/one.txt"\nexec sleep 600\n');
    chmodSync(program, 0o755);
    const s = spawnTmuxSession({ name: 'auto-oneword-000003', argv: [program], cwd: dir, env: envWithoutTmux() }, o);
    const one = join(dir, 'one.txt');
    const text = await waitFor(() => (existsSync(one) ? readFileSync(one, 'utf8') : undefined), 'one.txt');
    // The trampoline exec'd the program: same pid as the pane's.
    expect(text.trim()).toBe(`args=0 pid=${s.pid}`);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    s.dispose();
  });

  it('gives the agent exactly its environment: set, changed, removed, PATH and SHELL', async () => {
    const o = tmuxOpts();
    const dir = tempDir();
    const reporter = script(dir, 'reporter.cjs', REPORTER);
    const env = {
      ...envWithoutTmux(),
      AD_PLAIN: 'plain',
      AD_HOSTILE: `it's "q" $(touch ${dir}/pwned) \`x\` \\ #{pane_id} #(touch ${dir}/pwned2) ;`,
      AD_MULTI: 'line1\nAD_FAKE=x;',
      PATH: `${dir}/bin:${process.env.PATH ?? '/usr/bin:/bin'}`,
      SHELL: '/bin/sh',
    } as Record<string, string>;
    delete env.HOME; // present in the server's environment: must be taken away
    // The first session starts the server; the second is made against its global environment.
    for (const [i, name] of ['auto-env-000004', 'auto-env-000005'].entries()) {
      const out = join(dir, `env${i}.json`);
      const s = spawnTmuxSession({ name, argv: [NODE, reporter, out], cwd: dir, env: { ...env, AD_WHICH: name } }, o);
      const { env: got } = await waitFor(() => readReport(out), `the report of ${name}`);
      expect(got.AD_PLAIN).toBe('plain');
      expect(got.AD_HOSTILE).toBe(env.AD_HOSTILE);
      expect(got.AD_MULTI).toBe(env.AD_MULTI);
      expect(got.AD_FAKE).toBeUndefined();
      expect(got.AD_WHICH).toBe(name);
      expect(got.HOME).toBeUndefined();
      expect(got.PATH).toBe(env.PATH);
      expect(got.SHELL).toBe('/bin/sh');
      expect(got.PWD).toBe(dir);
      expect(got.TMUX_PANE).toMatch(/^%\d+$/); // tmux's own
      expect(existsSync(join(dir, 'pwned'))).toBe(false);
      expect(existsSync(join(dir, 'pwned2'))).toBe(false);
    }
  });

  it('types text and Enter as separate writes; control bytes arrive as bytes; the exit is reported once', async () => {
    const o = tmuxOpts();
    const dir = tempDir();
    const s = spawnTmuxSession({ name: 'auto-input-000006', argv: [NODE, script(dir, 'reader.cjs', READER), 'in'], cwd: dir, env: envWithoutTmux(), cols: 80, rows: 12 }, o);
    const seen = exits(s);
    await waitFor(() => screenText(s).includes('READY in'), 'READY');
    s.write(`it's $(x) "q" é❯;`);
    s.write('\r');
    await waitFor(() => screenText(s).includes(`got "it's $(x) \\"q\\" é❯;\\n"`), 'the line');
    s.write('\x04');
    await waitFor(() => seen.length > 0, 'the exit');
    expect(seen).toEqual([{ exitCode: 3 }]);
    expect(s.exited).toBe(true);
    // remain-on-exit: the last screen stays, without tmux's "Pane is dead" line.
    const last = screenText(s);
    expect(last).toContain('EOF');
    expect(last).not.toContain('Pane is dead');
    expect(tmuxSessionExists('auto-input-000006', o)).toBe(true);
    await pollRounds();
    expect(seen).toHaveLength(1);
    const late = exits(s);
    await waitFor(() => late.length > 0, 'the late listener');
    expect(late).toEqual([{ exitCode: 3 }]);
    s.write('ignored after exit');
    s.dispose();
    expect(tmuxSessionExists('auto-input-000006', o)).toBe(false);
  });

  it('reports an immediate exit on a fresh server, and a death by signal, once each', async () => {
    // tmux 3.3a misses the SIGCHLD of the first pane of a new server about half the time
    // (the pane dead, no status, the program a zombie): each round here is such a pane.
    for (let round = 0; round < 6; round++) {
      const o = tmuxOpts();
      const s = spawnTmuxSession({ name: 'auto-quick-000007', argv: [NODE, '-e', 'process.exit(5)'], cwd: tempDir(), env: envWithoutTmux() }, o);
      const seen = exits(s);
      await waitFor(() => seen.length > 0, `exit of round ${round}`, 10_000);
      expect(seen).toEqual([{ exitCode: 5 }]);
      s.dispose();
    }
    const o = tmuxOpts();
    const s = spawnTmuxSession({ name: 'auto-signal-000008', argv: [NODE, '-e', 'console.log("up"); setInterval(() => {}, 1000)'], cwd: tempDir(), env: envWithoutTmux() }, o);
    const seen = exits(s);
    await waitFor(() => screenText(s).includes('up'), 'up');
    s.kill('SIGTERM');
    await waitFor(() => seen.length > 0, 'the signal death');
    expect(seen).toEqual([{ exitCode: 0, signal: 15 }]);
    await pollRounds();
    expect(seen).toHaveLength(1);
    s.dispose();
  });

  it('adopts a running session after its Session was dropped without dispose: same pid, same screen', async () => {
    const o = tmuxOpts();
    const dir = tempDir();
    const name = 'auto-adopt-000009';
    let first: Session | undefined = tmuxFactory(o)({ name, argv: [NODE, script(dir, 'reader.cjs', READER), 'adopt'], cwd: dir, env: envWithoutTmux(), cols: 70, rows: 9 });
    await waitFor(() => screenText(first!).includes('READY adopt'), 'READY');
    first.write('before\r');
    await waitFor(() => screenText(first!).includes('got "before\\n"'), 'before');
    const pid = first.pid;
    const screen = first.screen();
    first = undefined; // the supervisor crashed: nothing was disposed

    expect(attachTmuxSession('auto-nothing-000000', o)).toBeUndefined();
    const adopted = attachTmuxSession(name, o)!;
    expect(adopted).toBeDefined();
    expect(adopted.pid).toBe(pid);
    expect(adopted.exited).toBe(false);
    expect(alive(pid)).toBe(true);
    expect(adopted.screen()).toEqual(screen);
    adopted.write('after\r');
    await waitFor(() => screenText(adopted).includes('got "after\\n"'), 'after');
    const seen = exits(adopted);
    adopted.kill('SIGTERM');
    await waitFor(() => seen.length > 0, 'exit of the adopted agent');
    expect(seen).toEqual([{ exitCode: 0, signal: 15 }]);

    // A dead pane is adopted too, already exited, its last screen kept.
    const dead = attachTmuxSession(name, o)!;
    expect(dead.exited).toBe(true);
    expect(dead.pid).toBe(pid);
    expect(screenText(dead)).toContain('got "after\\n"');
    const deadSeen = exits(dead);
    await waitFor(() => deadSeen.length > 0, 'exit of the dead adoptee');
    expect(deadSeen).toEqual([{ exitCode: 0, signal: 15 }]);
    dead.dispose();
    expect(tmuxSessionExists(name, o)).toBe(false);
  });

  it('dispose ends a running agent and its session; the exit comes once', async () => {
    const o = tmuxOpts();
    const name = 'auto-dispose-000010';
    const s = spawnTmuxSession({ name, argv: [NODE, '-e', 'process.on("SIGHUP", () => {}); console.log("up"); setInterval(() => {}, 1000)'], cwd: tempDir(), env: envWithoutTmux() }, o);
    const seen = exits(s);
    await waitFor(() => screenText(s).includes('up'), 'up');
    expect(listTmuxSessions(o)).toEqual([{ name, pid: s.pid, dead: false }]);
    s.dispose();
    expect(tmuxSessionExists(name, o)).toBe(false);
    await waitFor(() => !alive(s.pid), 'the agent gone');
    await waitFor(() => seen.length > 0, 'the exit');
    expect(seen).toEqual([{ exitCode: 0, signal: 9 }]);
    s.dispose(); // twice is harmless
    await pollRounds();
    expect(seen).toHaveLength(1);
    expect(listTmuxSessions(o)).toEqual([]);
  });

  it('replaces a dead session of the same name, refuses a live one', async () => {
    const o = tmuxOpts();
    const dir = tempDir();
    const name = 'auto-replace-000011';
    const dead = spawnTmuxSession({ name, argv: [NODE, '-e', 'process.exit(2)'], cwd: dir, env: envWithoutTmux() }, o);
    const seen = exits(dead);
    await waitFor(() => seen.length > 0, 'the first exit');
    dead.detach(); // left behind, as by a crashed supervisor
    const live = spawnTmuxSession({ name, argv: [NODE, '-e', 'console.log("second"); setInterval(() => {}, 1000)'], cwd: dir, env: envWithoutTmux() }, o);
    await waitFor(() => screenText(live).includes('second'), 'the second agent');
    expect(() => spawnTmuxSession({ name, argv: [NODE, '-e', '0'], cwd: dir, env: envWithoutTmux() }, o)).toThrow(/already runs an agent/);
    expect(live.exited).toBe(false);
    live.dispose();
  });

  it('resizes the window; the program sees the new size and the capture has its rows', async () => {
    const o = tmuxOpts();
    const dir = tempDir();
    const s = spawnTmuxSession({ name: 'auto-resize-000012', argv: [NODE, script(dir, 'reader.cjs', READER), 'sz'], cwd: dir, env: envWithoutTmux(), cols: 80, rows: 20 }, o);
    await waitFor(() => screenText(s).includes('READY sz'), 'READY');
    expect(s.screen()).toHaveLength(20);
    s.resize(50, 12);
    await waitFor(() => screenText(s).includes('size 50x12'), 'the new size');
    expect(s.screen()).toHaveLength(12);
    s.dispose();
  });

  it('runs an argv over tmux\'s command size through a launcher that removes itself', async () => {
    const o = tmuxOpts();
    const dir = tempDir();
    const reporter = script(dir, 'reporter.cjs', REPORTER);
    const out = join(dir, 'long.json');
    const launchers = () => readdirSync(tmpdir()).filter((f) => f.startsWith('autodeck-tmux-'));
    const before = new Set(launchers());
    const words = ['y'.repeat(20_000), `it's "odd" $(touch ${dir}/pwned)`, 'tail;'];
    const s = spawnTmuxSession({ name: 'auto-long-000013', argv: [NODE, reporter, out, ...words], cwd: dir, env: { ...envWithoutTmux(), AD_LONG: 'z'.repeat(3000) } }, o);
    const report = await waitFor(() => readReport(out), 'the report');
    expect(report.argv).toEqual(words);
    expect(report.env.AD_LONG).toBe('z'.repeat(3000));
    expect(report.cwd).toBe(dir);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    await waitFor(() => launchers().every((f) => before.has(f)), 'the launcher removed');
    s.dispose();
  });

  it('streams raw output to onOutput listeners while subscribed', async () => {
    const o = tmuxOpts();
    const dir = tempDir();
    const s = spawnTmuxSession({ name: 'auto-output-000014', argv: [NODE, script(dir, 'reader.cjs', READER), 'out'], cwd: dir, env: envWithoutTmux() }, o);
    await waitFor(() => screenText(s).includes('READY out'), 'READY');
    let text = '';
    const off = s.onOutput((d) => {
      text += d;
    });
    s.write('streamed ❯\r');
    await waitFor(() => text.includes('got "streamed ❯\\n"'), 'the output');
    off();
    s.dispose();
  });

  it('treats the session vanishing as an exit', async () => {
    const o = tmuxOpts();
    const name = 'auto-vanish-000015';
    const s = spawnTmuxSession({ name, argv: [NODE, '-e', 'console.log("up"); setInterval(() => {}, 1000)'], cwd: tempDir(), env: envWithoutTmux() }, o);
    const seen = exits(s);
    await waitFor(() => screenText(s).includes('up'), 'up');
    execFileSync(check.ok ? check.program : 'tmux', ['-L', o.socket!, 'kill-session', '-t', `=${name}`]);
    await waitFor(() => seen.length > 0, 'the exit');
    expect(seen).toEqual([{ exitCode: VANISHED_EXIT_CODE }]);
    expect(screenText(s)).toContain('up'); // the last screen seen
    s.dispose();
  });

  it('refuses a cwd that does not exist and explains a missing tmux in one line', () => {
    const o = tmuxOpts();
    expect(() => spawnTmuxSession({ name: 'auto-nocwd-000016', argv: [NODE], cwd: '/nonexistent/autodeck', env: envWithoutTmux() }, o)).toThrow(/working directory not found/);
    const missing = tmuxAvailable({ tmux: '/nonexistent/bin/tmux' });
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.message).toMatch(/^[^\n]*tmux 3\.3 or later[^\n]*$/);
    expect(listTmuxSessions(o)).toEqual([]);
    expect(tmuxSessionExists('auto-nocwd-000016', o)).toBe(false);
  });
});
