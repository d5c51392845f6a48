import { describe, expect, it } from 'vitest';
import { ActionError, attachArgv, removeSession, sendPrompt, stopSession, type ActionContext } from '../../src/claudeSessions/actions.js';
import { parseEntry, type ClaudeSession } from '../../src/claudeSessions/listing.js';
import type { CommandResult, RunProgram } from '../../src/claudeSessions/reader.js';

// What autodeck asks of Claude Code for a session, with `claude` played by a stand-in that
// records each call: a prompt goes by stop and `--bg --resume <full id> -- <prompt>`, never by
// a short id; a busy session, a release that would copy, and a copy Claude Code starts anyway
// are refused, said, and cleaned up.

const ID = 'ab12cd34';
const FULL = 'ab12cd34-0000-4000-8000-000000000001';

function session(patch: Record<string, unknown> = {}): ClaudeSession {
  return parseEntry({ pid: 10, id: ID, sessionId: FULL, cwd: '/work/app', kind: 'background', name: 'task', status: 'idle', state: 'working', ...patch })!;
}

/** A stand-in claude: answers by the command; `stopped` says whether the session is listed as stopped yet. */
function standIn(opts: { version?: string; resumedAs?: string; startsAfterLooks?: number } = {}) {
  const calls: { args: string[]; cwd?: string | undefined }[] = [];
  let stopped = false;
  /** After a resume, how many more looks list it stopped (the daemon starting it). */
  let starting = -1;
  const run: RunProgram = async (_file, args, o): Promise<CommandResult> => {
    calls.push({ args: [...args], cwd: o.cwd });
    const ok = (stdout: string): CommandResult => ({ code: 0, stdout, stderr: '' });
    switch (args[0]) {
      case '--version':
        return ok(`${opts.version ?? '2.1.332'} (Claude Code)\n`);
      case 'stop':
        stopped = true;
        return ok(`stopped ${args[1]}\n`);
      case 'rm':
        return ok(`removed ${args[1]}\n`);
      case 'agents':
        if (starting >= 0 && starting-- === 0) stopped = false;
        return ok(JSON.stringify([stopped ? { id: ID, sessionId: FULL, cwd: '/work/app', kind: 'background', name: 'task', state: 'stopped' } : { pid: 10, id: ID, sessionId: FULL, cwd: '/work/app', kind: 'background', name: 'task', status: 'idle' }]));
      case '--bg':
        starting = opts.startsAfterLooks ?? 0;
        return ok(`backgrounded · ${opts.resumedAs ?? ID} · task\n  claude agents             list sessions\n`);
      default:
        return { code: 1, stdout: '', stderr: `unknown ${args[0]}` };
    }
  };
  const ctx: ActionContext = { program: `claude-${Math.random()}`, configDir: '/nowhere', env: {}, run, sleep: async () => {} };
  return { ctx, calls };
}

describe('sending a prompt to a background session', () => {
  it('stops it, waits until it is listed stopped, and resumes it by its full id from its folder, the prompt after --', async () => {
    const { ctx, calls } = standIn();
    expect(await sendPrompt(ctx, session(), '-v looks like a flag')).toBe(ID);
    const resume = calls.find((c) => c.args[0] === '--bg')!;
    expect(resume).toEqual({ args: ['--bg', '--resume', FULL, '--', '-v looks like a flag'], cwd: '/work/app' });
    expect(calls.map((c) => c.args[0])).toEqual(['--version', 'stop', 'agents', '--bg', 'agents']);
  });

  it('returns only once Claude Code lists the resumed session running again (until then it reads as stopped)', async () => {
    const { ctx, calls } = standIn({ startsAfterLooks: 3 });
    await sendPrompt(ctx, session(), 'go on');
    const after = calls.slice(calls.findIndex((c) => c.args[0] === '--bg') + 1).map((c) => c.args[0]);
    expect(after).toEqual(['agents', 'agents', 'agents', 'agents']);
  });

  it('a stopped session is resumed without a stop', async () => {
    const { ctx, calls } = standIn();
    await sendPrompt(ctx, session({ pid: undefined, status: undefined, state: 'stopped' }), 'go on');
    expect(calls.map((c) => c.args[0])).toEqual(['--version', '--bg', 'agents']);
  });

  it('refuses a busy session, one waiting on a person, an empty prompt, an interactive session: nothing is stopped', async () => {
    for (const [patch, prompt, kind, words] of [
      [{ status: 'busy' }, 'x', 'conflict', /busy with a turn; send when it is idle \(refused, not queued\)/],
      [{ status: 'waiting', waitingFor: 'permission prompt' }, 'x', 'conflict', /waits on permission prompt; answer that first/],
      [{}, '  ', 'refused', /empty/],
      [{ id: '', kind: 'interactive' }, 'x', 'refused', /runs in its own terminal/],
    ] as const) {
      const { ctx, calls } = standIn();
      const err = await sendPrompt(ctx, session(patch), prompt).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ActionError);
      expect((err as ActionError).kind).toBe(kind);
      expect((err as Error).message).toMatch(words);
      expect(calls.filter((c) => c.args[0] === 'stop' || c.args[0] === '--bg')).toEqual([]);
    }
  });

  it('on a release that continues only as a copy (2.1.197) it is refused before anything is stopped', async () => {
    const { ctx, calls } = standIn({ version: '2.1.197' });
    const err = await sendPrompt(ctx, session(), 'go on').catch((e: unknown) => e);
    expect((err as ActionError).kind).toBe('refused');
    expect((err as Error).message).toMatch(/Claude Code 2\.1\.197 continues a background session only as a copy/);
    expect(calls.map((c) => c.args[0])).toEqual(['--version']);
  });

  it('a copy Claude Code starts anyway is stopped and removed, and the send fails', async () => {
    const { ctx, calls } = standIn({ resumedAs: 'ffff0000' });
    const err = await sendPrompt(ctx, session(), 'go on').catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/started a copy \(ffff0000\) instead of continuing ab12cd34/);
    expect(calls.slice(-2).map((c) => c.args)).toEqual([['stop', 'ffff0000'], ['rm', 'ffff0000']]);
  });
});

describe('the other actions', () => {
  it('stop and rm by the short id; a running session is not removed, an ended one not stopped', async () => {
    const { ctx, calls } = standIn();
    await stopSession(ctx, session());
    await expect(stopSession(ctx, session({ pid: undefined, status: undefined, state: 'stopped' }))).rejects.toThrow(/not running/);
    await expect(removeSession(ctx, session())).rejects.toThrow(/still running: stop it first/);
    await removeSession(ctx, session({ pid: undefined, status: undefined, state: 'done' }));
    expect(calls.map((c) => c.args)).toEqual([['stop', ID], ['rm', ID]]);
  });

  it('attach runs claude attach <short id>; an interactive session cannot be attached', () => {
    expect(attachArgv('/bin/claude', session())).toEqual(['/bin/claude', 'attach', ID]);
    expect(() => attachArgv('claude', session({ id: '', kind: 'interactive' }))).toThrow(/its own terminal/);
  });
});
