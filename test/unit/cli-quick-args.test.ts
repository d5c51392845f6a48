import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/cli/parse.js';
import { quickDashboardArgs } from '../../src/dashboardArgs.js';

// The dashboard's flags skip the command table (start-up time); whatever the quick parser
// takes, it must read exactly as the full parser does, and whatever it cannot read the same
// it must hand to the full parser.
describe('quickDashboardArgs', () => {
  it.each([
    [[]],
    [['--root', '/a', '--db', '/tmp/x.db']],
    [['--root=/a', '--root', '/b', '--agent', 'node sim.js {taskDir}']],
    [['--heartbeat', '5', '--heartbeat', '9', '--max-iterations=7']],
  ])('reads %j as the full parser does', async (argv) => {
    const quick = await quickDashboardArgs(argv);
    expect(quick).toBeDefined();
    const full = parseCommandLine(argv);
    expect(full).toMatchObject({ kind: 'command', command: undefined, args: [] });
    expect(quick!.input).toEqual([]);
    expect(quick!.flags).toEqual(full.kind === 'command' ? full.flags : undefined);
  });

  it.each([
    [['demo']], [['status', '--json']], [['--help']], [['-h']], [['--version']], [['--json']], [['--root']],
    [['--root', '--db', 'x']], [['--max-cost', '-1']], [['--root', '']], [['--bogus', '1']], [['--root', 'a', 'extra']],
  ])('hands %j to the full parser', async (argv) => {
    expect(await quickDashboardArgs(argv)).toBeUndefined();
  });
});
