import { describe, expect, it } from 'vitest';
import { cleanOutput, TailBuffer, tailOf } from '../../src/verify/output.js';
import { describeVerify, parseVerify, verifyArgv, verifyFor } from '../../src/verify/command.js';
import { feedbackMessage, judgeVerify, MAX_MESSAGE_CHARS, verifyEnding, verifyEnv } from '../../src/verify/policy.js';
import type { VerifyResult } from '../../src/verify/runner.js';
import { SENTINEL } from '../../src/hooks/sentinel.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const result = (over: Partial<VerifyResult> = {}): VerifyResult => ({
  exitCode: 1, signal: null, timedOut: false, cancelled: false, durationMs: 4200, output: '', outputBytes: 0, ...over,
});

describe('the verify command as written', () => {
  it('a string is a shell line, an array an argv; empty, none, [] and null mean none', () => {
    expect(parseVerify('npm test')).toEqual({ ok: true, command: { kind: 'shell', line: 'npm test' } });
    expect(parseVerify(['npm', 'test'])).toEqual({ ok: true, command: { kind: 'argv', argv: ['npm', 'test'] } });
    for (const none of ['', '  ', 'none', 'NONE', [], null, undefined]) expect(parseVerify(none)).toEqual({ ok: true, command: undefined });
    expect(parseVerify(5)).toMatchObject({ ok: false });
    expect(parseVerify(['npm', 5])).toMatchObject({ ok: false, message: 'a verify argv must be an array of strings' });
    expect(parseVerify(['', 'x'])).toMatchObject({ ok: false });
    expect(parseVerify('a\0b')).toMatchObject({ ok: false });
    expect(parseVerify('x'.repeat(5000))).toMatchObject({ ok: false });
  });

  it('runs a shell line with sh -c exactly as written, an argv as it is', () => {
    expect(verifyArgv({ kind: 'shell', line: 'npm test && echo "$AUTODECK_TASK_DIR"' })).toEqual(['/bin/sh', '-c', 'npm test && echo "$AUTODECK_TASK_DIR"']);
    expect(verifyArgv({ kind: 'argv', argv: ['make', 'check'] })).toEqual(['make', 'check']);
    expect(describeVerify({ kind: 'argv', argv: ['npm', 'run', 'test:unit', 'a b'] })).toBe('npm run test:unit "a b"');
  });

  it('a flag or the environment beats the module\'s .index.json, which beats the settings files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autodeck-verify-'));
    try {
      const file = { command: { kind: 'shell', line: 'from-file' }, origin: 'file' } as const;
      expect(verifyFor(file, dir)).toEqual({ command: file.command });
      writeFileSync(join(dir, '.index.json'), JSON.stringify({ status: 'planning', verify: ['make', 'check'] }));
      expect(verifyFor(file, dir)).toEqual({ command: { kind: 'argv', argv: ['make', 'check'] } });
      expect(verifyFor({ command: { kind: 'shell', line: 'from-flag' }, origin: 'flag' }, dir)).toEqual({ command: { kind: 'shell', line: 'from-flag' } });
      expect(verifyFor({ command: undefined, origin: 'env' }, dir)).toEqual({ command: undefined });
      writeFileSync(join(dir, '.index.json'), JSON.stringify({ verify: { run: 'x' } }));
      expect(verifyFor(file, dir)).toMatchObject({ error: expect.stringContaining('.index.json "verify"') });
      rmSync(join(dir, '.index.json'));
      mkdirSync(join(dir, '.index.json')); // not a file: names no verify
      expect(verifyFor(undefined, dir)).toEqual({ command: undefined });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('output kept and shown', () => {
  it('keeps only the last bytes, counting all', () => {
    const b = new TailBuffer(10);
    b.push(Buffer.from('0123456789'));
    b.push(Buffer.from('abc'));
    expect(b.text()).toBe('3456789abc');
    expect([b.total, b.truncated]).toEqual([13, true]);
    b.push(Buffer.from('x'.repeat(50)));
    expect(b.text()).toBe('x'.repeat(10));
    const u = new TailBuffer(4);
    u.push(Buffer.from('aé€')); // a cut UTF-8 sequence at the head is dropped
    expect(u.text()).toBe('€');
  });

  it('removes escapes and control characters; a redrawn line is its last drawing', () => {
    const raw = '\x1b[31mFAIL\x1b[0m test/a.test.ts\r\n\x1b]0;title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\nprogress 10%\rprogress 100%\n\x07bell\x00nul\tTab \u202eevil\n';
    expect(cleanOutput(raw)).toBe('FAIL test/a.test.ts\nlink\nprogress 100%\nbellnul  Tab evil\n');
  });

  it('a tail is bounded by lines and characters', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n') + '\n\n';
    expect(tailOf(text, { lines: 3, chars: 1000 })).toBe('line 97\nline 98\nline 99');
    expect(tailOf(text, { lines: 3, chars: 10 })).toBe('…8\nline 99');
  });
});

describe('what a finished verify means', () => {
  it('exit 0 completes; failures count until verifyAttempts in a row', () => {
    expect(judgeVerify(result({ exitCode: 0 }), 2, 3)).toEqual({ kind: 'complete' });
    expect(judgeVerify(result(), 0, 3)).toEqual({ kind: 'retry', failures: 1 });
    expect(judgeVerify(result(), 1, 3)).toEqual({ kind: 'retry', failures: 2 });
    expect(judgeVerify(result(), 2, 3)).toEqual({ kind: 'give_up', failures: 3 });
    expect(judgeVerify(result({ exitCode: 0, timedOut: true }), 0, 3)).toEqual({ kind: 'retry', failures: 1 });
    expect(judgeVerify(result({ exitCode: null, error: 'spawn nope ENOENT' }), 0, 1)).toEqual({ kind: 'give_up', failures: 1 });
  });

  it('says how it ended', () => {
    expect(verifyEnding(result(), 60_000)).toBe('exited with code 1');
    expect(verifyEnding(result({ exitCode: null, timedOut: true }), 600_000)).toBe('did not finish within 10 min and was killed');
    expect(verifyEnding(result({ exitCode: null, signal: 'SIGSEGV' }), 1)).toBe('was ended by SIGSEGV');
    expect(verifyEnding(result({ exitCode: null, error: 'spawn npm ENOENT' }), 1)).toBe('could not be started (spawn npm ENOENT)');
  });
});

describe('the continuation message after a failed verify', () => {
  const base = { command: 'npm test', timeoutMs: 600_000, failures: 1, attempts: 3, mode: 'signal' as const };

  it('names the command, how it failed and the end of its output, on one line without escapes', () => {
    const output = `${'noise\n'.repeat(200)}\x1b[31m✗ adds numbers\x1b[0m\n  expected 3, got 4\r\n\x1b[2K1 failed\n`;
    const m = feedbackMessage({ ...base, result: result({ output }) });
    expect(m).toContain('its verify command failed (1 of 3 allowed failures; 2 left)');
    expect(m).toContain('`npm test` exited with code 1 after 4 s.');
    expect(m).toContain('✗ adds numbers ⏎ expected 3, got 4 ⏎ 1 failed»');
    expect(m).toContain('writing a signal after each step');
    expect(m).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(m.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
  });

  it('stays bounded whatever the output, and keeps its end', () => {
    const output = Array.from({ length: 5000 }, (_, i) => `${'x'.repeat(300)} ${i}`).join('\n');
    const m = feedbackMessage({ ...base, result: result({ output }) });
    expect(m.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(m).toContain(' 4999»');
    const wide = feedbackMessage({ ...base, result: result({ output: '漢字'.repeat(5000) }) });
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(4000);
    expect(wide).toContain('漢字»');
  });

  it('in hook mode asks for the completion sentinel again; the output cannot carry the sentinel itself', () => {
    const m = feedbackMessage({ ...base, mode: 'hook', result: result({ output: `done ${SENTINEL}\n` }) });
    expect(m).toContain(`end with ${SENTINEL} again`);
    expect(m.split(SENTINEL)).toHaveLength(2);
    expect(m).toContain('done [sentinel]');
    expect(feedbackMessage({ ...base, result: result() })).toContain('It printed nothing.');
  });
});

describe("the verify's environment", () => {
  it('the user\'s, without autodeck\'s own process variables, with the loop\'s facts', () => {
    const env = verifyEnv({
      PATH: '/bin', HOME: '/h', LANG: 'C.UTF-8', npm_lifecycle_event: 'test', npm_config_prefix: '/x', AUTODECK_DB: '/db',
      AUTODECK_VERIFY: 'npm test', AUTODECK_WORKTREE: 'true', CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: 's', TMUX: '/tmp/t', COLUMNS: '80', FORCE_COLOR: '3', INIT_CWD: '/c',
    }, { taskDir: '/p/AiTasks/m', taskName: 'm', worktree: '/p/.autodeck/worktrees/m-1', cwd: '/p/.autodeck/worktrees/m-1', attempt: 2, session: 'auto-m-abc' });
    expect(env).toEqual({
      PATH: '/bin', HOME: '/h', LANG: 'C.UTF-8', TERM: 'dumb', NO_COLOR: '1', PWD: '/p/.autodeck/worktrees/m-1',
      AUTODECK_VERIFYING: '1', AUTODECK_VERIFY_ATTEMPT: '2', AUTODECK_TASK_DIR: '/p/AiTasks/m', AUTODECK_TASK_NAME: 'm',
      AUTODECK_SESSION: 'auto-m-abc', AUTODECK_WORKTREE_PATH: '/p/.autodeck/worktrees/m-1',
    });
  });
});
