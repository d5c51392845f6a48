import { describe, expect, it } from 'vitest';
import { APPROVAL_ENV, approvalEnvValue, preToolAnswer, readApprovalEnv } from '../../src/hooks/preToolUse.js';
import { parsePolicy, type ApprovalPolicy, type PolicyContext } from '../../src/policy/rules.js';
import { claudePermissionModeKind, commandMode, withPermissionMode } from '../../src/agents/claudePermissionMode.js';
import { outsideRangeNotes, parseVersion, versionVerdict } from '../../src/agents/claudeVersion.js';

// The approval policy where Claude Code asks first (its PreToolUse hook), whatever the
// permission mode; the mode itself chosen on the command line, never in the user's files.

const context: PolicyContext = { projectDir: '/work/proj', cwd: '/work/proj', home: '/home/u', tempDirs: ['/tmp'] };
const policy = (rules: unknown[]): ApprovalPolicy => {
  const p = parsePolicy({ rules });
  if ('error' in p) throw new Error(p.error);
  return p.value;
};
const event = (tool: string, input: Record<string, unknown>) => ({
  session_id: 's', hook_event_name: 'PreToolUse', permission_mode: 'auto', tool_name: tool, tool_input: input, tool_use_id: 't',
});

describe('the PreToolUse answer', () => {
  const setup = { policy: policy([{ ask: 'Bash(npm publish*)' }, { deny: 'Write(/work/proj/secrets/**)', reason: 'secrets stay as they are' }]), context };

  it('a built-in deny: the tool never runs and the model reads why, in any mode', () => {
    const a = preToolAnswer(event('Bash', { command: 'git push --force origin main', description: 'Publish' }), setup)!;
    expect(a.outcome).toMatchObject({ decision: 'deny', rule: 'built-in git-push-force' });
    const out = JSON.parse(a.output!) as { hookSpecificOutput: Record<string, string> };
    expect(out.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(/^autodeck's approval policy refused Bash git push --force origin main: a forced push/);
  });

  it('a rule of the user\'s: deny with its reason; ask leaves the call to a person (Claude Code then shows its prompt)', () => {
    const deny = preToolAnswer(event('Write', { file_path: '/work/proj/secrets/key.txt', content: 'x' }), setup)!;
    expect(JSON.parse(deny.output!).hookSpecificOutput.permissionDecisionReason).toContain('secrets stay as they are');
    const ask = preToolAnswer(event('Bash', { command: 'npm publish --access public' }), setup)!;
    expect(JSON.parse(ask.output!).hookSpecificOutput).toMatchObject({ permissionDecision: 'ask' });
    expect(ask.outcome.rule).toBe('ask Bash(npm publish*)');
  });

  it('an allow says nothing: Claude Code\'s own mode decides', () => {
    const a = preToolAnswer(event('Write', { file_path: '/work/proj/AiTasks/m/notes.md', content: 'x' }), setup)!;
    expect(a.outcome.decision).toBe('allow');
    expect(a.output).toBeUndefined();
    expect(preToolAnswer(event('Bash', { command: 'npm test' }), setup)!.output).toBeUndefined();
  });

  it('other events and events without a tool get no answer', () => {
    expect(preToolAnswer({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'git push -f' } }, setup)).toBeUndefined();
    expect(preToolAnswer({ hook_event_name: 'PreToolUse' }, setup)).toBeUndefined();
  });

  it('the policy travels in the environment and comes back the same; a broken value is no policy', () => {
    const env = { [APPROVAL_ENV]: approvalEnvValue(setup) };
    const back = readApprovalEnv(env)!;
    expect(back.context).toEqual(context);
    expect(back.policy.rules.map((r) => r.text)).toEqual(setup.policy.rules.map((r) => r.text));
    expect(back.policy.rules[1]!.reason).toBe('secrets stay as they are');
    expect(readApprovalEnv({})).toBeUndefined();
    expect(readApprovalEnv({ [APPROVAL_ENV]: '{not json' })).toBeUndefined();
    expect(readApprovalEnv({ [APPROVAL_ENV]: JSON.stringify({ policy: { rules: [] }, context: { cwd: '/x' } }) })).toBeUndefined();
  });

  it('an override of the user\'s switches a built-in deny off', () => {
    const lenient = { policy: { ...policy([]), override: ['git-push-force' as const] }, context };
    expect(preToolAnswer(event('Bash', { command: 'git push --force origin main' }), readApprovalEnv({ [APPROVAL_ENV]: approvalEnvValue(lenient) })!)!.output).toBeUndefined();
  });
});

describe('the permission mode of a supervised session', () => {
  it('inherit passes nothing; a mode goes in as --permission-mode; manual is `default`, which both ends accept', () => {
    const argv = ['/bin/claude', '--settings', '{}', '/autodeck-auto /t'];
    expect(withPermissionMode(argv, 'inherit')).toEqual(argv);
    expect(withPermissionMode(argv, 'manual')).toEqual(['/bin/claude', '--permission-mode', 'default', '--settings', '{}', '/autodeck-auto /t']);
    expect(withPermissionMode(argv, 'auto').slice(1, 3)).toEqual(['--permission-mode', 'auto']);
  });

  it('the agent command\'s own mode wins', () => {
    for (const own of [['--permission-mode', 'plan'], ['--permission-mode=plan'], ['--dangerously-skip-permissions']]) {
      const argv = ['/bin/claude', ...own, 'go'];
      expect(withPermissionMode(argv, 'auto')).toEqual(argv);
    }
    expect(commandMode(['/bin/claude', '--', '--permission-mode', 'plan'])).toBeUndefined();
  });

  it('the setting reads Claude Code\'s names in any case, and `default` as manual', () => {
    const parse = (raw: string) => claudePermissionModeKind.parse(raw, { origin: 'flag', baseDir: '/', home: '/' });
    expect(parse('acceptedits')).toEqual({ ok: true, value: 'acceptEdits' });
    expect(parse('default')).toEqual({ ok: true, value: 'manual' });
    expect(parse('Manual')).toEqual({ ok: true, value: 'manual' });
    expect(parse('yolo')).toMatchObject({ ok: false });
  });
});

describe('the supported range', () => {
  it('both ends are inside; older and newer say what may not work', () => {
    expect(versionVerdict(parseVersion('2.1.197 (Claude Code)')!)).toBe('inside');
    expect(versionVerdict(parseVersion('2.1.332')!)).toBe('inside');
    expect(versionVerdict(parseVersion('2.1.196')!)).toBe('older');
    expect(versionVerdict(parseVersion('2.2.0')!)).toBe('newer');
    expect(outsideRangeNotes(parseVersion('2.1.250')!)).toEqual([]);
    expect(outsideRangeNotes(parseVersion('2.0.5')!).join('\n')).toMatch(/older than 2\.1\.197/);
    expect(outsideRangeNotes(parseVersion('3.0.0')!).join('\n')).toMatch(/newer than 2\.1\.332/);
    expect(parseVersion('no version here')).toBeUndefined();
  });
});
