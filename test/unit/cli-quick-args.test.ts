import { describe, expect, it } from 'vitest';
import { parseWithMeow } from '../../src/cli.js';
import { quickDashboardArgs } from '../../src/dashboardArgs.js';

// The dashboard's flags skip meow (start-up time); whatever the quick parser takes, it must
// read exactly as meow does, and whatever it cannot read the same it must hand to meow.
describe('quickDashboardArgs', () => {
  const settingsOf = (flags: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)));

  it.each([
    [[]],
    [['--root', '/a', '--db', '/tmp/x.db']],
    [['--root=/a', '--root', '/b', '--agent', 'node sim.js {taskDir}']],
    [['--heartbeat', '5', '--heartbeat', '9', '--max-iterations=7']],
    [['--worktree', '--root', '/a', '--verify', 'npm test']],
  ])('reads %j as meow does', async (argv) => {
    const quick = await quickDashboardArgs(argv);
    expect(quick).toBeDefined();
    const meow = await parseWithMeow(argv);
    expect(quick!.input).toEqual(meow.input);
    expect(settingsOf(quick!.flags)).toEqual(settingsOf(meow.flags));
  });

  it.each([
    [['demo']], [['status', '--json']], [['--help']], [['--version']], [['--json']], [['--root']],
    [['--root', '--db', 'x']], [['--max-cost', '-1']], [['--root', '']], [['--bogus', '1']], [['--root', 'a', 'extra']],
    [['--no-worktree']], [['--worktree', 'true']],
  ])('hands %j to meow', async (argv) => {
    expect(await quickDashboardArgs(argv)).toBeUndefined();
  });
});

describe('a switch setting on the command line', () => {
  it('--worktree takes no value (the folder after it stays a folder); --no-worktree turns it off', async () => {
    expect((await parseWithMeow(['run', '--worktree', '/m'])).input).toEqual(['run', '/m']);
    expect((await parseWithMeow(['run', '--worktree', '/m'])).flags.worktree).toBe(true);
    expect((await parseWithMeow(['run', '/m', '--no-worktree'])).flags.worktree).toBe(false);
    expect((await parseWithMeow(['run', '/m'])).flags.worktree).toBeUndefined();
  });
});
