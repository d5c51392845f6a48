import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AgentCommandError, expandAgentArgv, missingProgramMessage, resolveProgram, splitAgentCommand,
} from '../../src/agents/command.js';

const base = mkdtempSync(join(tmpdir(), 'autodeck-agent-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('splitAgentCommand', () => {
  it.each([
    ['node "/a b/x.js" sim {taskDir}', ['node', '/a b/x.js', 'sim', '{taskDir}']],
    ['claude "/ai-cli-task auto {taskDir}"', ['claude', '/ai-cli-task auto {taskDir}']],
    ["claude '/ai-cli-task auto {taskDir}'", ['claude', '/ai-cli-task auto {taskDir}']],
    ["a 'it''s' \"say \\\"hi\\\"\"", ['a', 'its', 'say "hi"']],
    ['a b\\ c \'f\\g\' "x\\\\y"', ['a', 'b c', 'f\\g', 'x\\y']],
    ['a "" b', ['a', '', 'b']],
    ['  a\tb  ', ['a', 'b']],
    // Nothing is expanded: no shell runs the command.
    ['run $HOME "$USER" \'$PATH\' ${X}', ['run', '$HOME', '$USER', '$PATH', '$X']],
    ['echo "$(touch pwned)" \'$(id)\'', ['echo', '$(touch pwned)', '$(id)']],
    ['echo `id` "`id`"', ['echo', '`id`', '`id`']],
    ['agent --flag=1 {taskName}', ['agent', '--flag=1', '{taskName}']],
  ])('%s', (input, expected) => {
    expect(splitAgentCommand(input)).toEqual(expected);
  });

  it.each([
    ['a | b', 'shell operator "|"'],
    ['a; b', 'shell operator ";"'],
    ['a && b', 'shell operator "&&"'],
    ['a || b', 'shell operator "||"'],
    ['a > out', 'shell operator ">"'],
    ['a < in', 'shell operator "<"'],
    ['a 2>&1', 'shell operator ">&"'],
    ['a &', 'shell operator "&"'],
    ['a $(id)', 'shell operator "("'],
    ['a *.js', '"*.js" would be a glob'],
    ['a ?', '"?" would be a glob'],
    ['a # note', '"#" would start a comment'],
  ])('refuses %j', (input, message) => {
    const run = () => splitAgentCommand(input);
    expect(run).toThrow(AgentCommandError);
    expect(run).toThrow(message);
    expect(run).toThrow('without a shell');
  });

  it.each(['', '   ', '"" x'])('refuses an empty command %j', (input) => {
    expect(() => splitAgentCommand(input)).toThrow('the agent command is empty');
  });

  it('turns a parse failure into a one-line error', () => {
    expect(() => splitAgentCommand('a ${}')).toThrow(AgentCommandError);
  });
});

describe('expandAgentArgv', () => {
  const nasty = join(base, 'my "weird" dir', "it's $(touch pwned)", '`touch pwned2`; rm -rf x');
  const vars = { taskDir: nasty, taskName: 'weird {session}', session: 'auto-weird-abc123', root: '/r oot' };

  it('substitutes element by element and never re-splits', () => {
    const out = expandAgentArgv(['claude', '/ai-cli-task auto {taskDir}', '{taskName}', '--s={session}', '{root}/{taskName}', '{unknown}'], vars);
    expect(out).toEqual([
      'claude',
      `/ai-cli-task auto ${nasty}`,
      'weird {session}', // a value is not expanded again
      '--s=auto-weird-abc123',
      '/r oot/weird {session}',
      '{unknown}',
    ]);
  });

  it('reaches the program as one intact argv element, with nothing run', () => {
    const cwd = join(base, 'run');
    mkdirSync(cwd, { recursive: true });
    const argv = expandAgentArgv(
      [process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', '{taskDir}'],
      vars,
    );
    const seen = JSON.parse(execFileSync(argv[0]!, argv.slice(1), { cwd, encoding: 'utf8' })) as string[];
    expect(seen).toEqual([nasty]);
    expect(existsSync(join(cwd, 'pwned'))).toBe(false);
    expect(existsSync(join(cwd, 'pwned2'))).toBe(false);
  });
});

describe('resolveProgram', () => {
  const env = { PATH: process.env.PATH };

  it('finds node on PATH', () => {
    const found = resolveProgram('node', env, base);
    expect(found).toBeDefined();
    expect(basename(found!)).toMatch(/^node(\.exe)?$/);
  });

  it('does not find a program that is not installed', () => {
    expect(resolveProgram('definitely-not-a-program', env, base)).toBeUndefined();
    expect(resolveProgram('node', {}, base)).toBeUndefined(); // no PATH, no lookup
  });

  it('checks a path with a slash itself, relative to cwd', () => {
    const bin = join(base, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'agent.sh'), '#!/bin/sh\n');
    chmodSync(join(bin, 'agent.sh'), 0o755);
    writeFileSync(join(bin, 'plain.txt'), 'x');
    chmodSync(join(bin, 'plain.txt'), 0o644);
    expect(resolveProgram('./bin/agent.sh', env, base)).toBe(join(bin, 'agent.sh'));
    expect(resolveProgram(process.execPath, env, base)).toBe(process.execPath);
    expect(resolveProgram('bin/plain.txt', env, base)).toBeUndefined();
    expect(resolveProgram('./bin', env, base)).toBeUndefined(); // a folder is not a program
    expect(resolveProgram('./bin/missing', env, base)).toBeUndefined();
  });
});

describe('missingProgramMessage', () => {
  it('is one line naming the program and how to set the agent', () => {
    expect(missingProgramMessage('claude')).toBe(
      'autodeck: agent program "claude" is not installed (not found in PATH); set the agent with ' +
        '--agent "PROGRAM ARGS {taskDir}", AUTODECK_AGENT or "agent" in .autodeck.json',
    );
    expect(missingProgramMessage('./x')).toContain('(not an executable file)');
  });
});
