import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findSettingsArg, mergeSessionSettings, protocolPermissions, sessionSettings, withSessionSettings } from '../../src/agents/claudeSettings.js';
import { readUserSettingsArg } from '../../src/agents/userSettingsArg.js';
import { INJECTED_STATE_EVENTS, STATE_EVENTS } from '../../src/hooks/state.js';

const hooks = { stop: 'autodeck hook stop --injected', state: 'autodeck hook state --injected' };
const commandsOf = (s: Record<string, unknown>, event: string) =>
  ((s.hooks as Record<string, { hooks: { command: string }[] }[]>)[event] ?? []).flatMap((m) => m.hooks.map((h) => h.command));

describe("the --settings autodeck gives a Claude Code session", () => {
  it('allows the protocol file operations of this module and nothing wider', () => {
    expect(protocolPermissions('/w/AiTasks/m')).toEqual([
      'Read(//w/AiTasks/m/.auto-stop)',
      'Read(//w/AiTasks/m/**)',
      'Write(//w/AiTasks/m/.auto-signal.tmp)', 'Edit(//w/AiTasks/m/.auto-signal.tmp)',
      'Write(//w/AiTasks/m/.summary.md)', 'Edit(//w/AiTasks/m/.summary.md)',
      'Write(//w/AiTasks/m/.working/.status.json)', 'Edit(//w/AiTasks/m/.working/.status.json)',
      'Bash(mv /w/AiTasks/m/.auto-signal.tmp /w/AiTasks/m/.auto-signal)',
      'Bash(mv -f /w/AiTasks/m/.auto-signal.tmp /w/AiTasks/m/.auto-signal)',
    ]);
  });

  it('registers the state hook for every state event; the Stop hook only in hook mode', () => {
    const signal = sessionSettings({ taskDir: '/w/m', mode: 'signal', hooks });
    for (const e of INJECTED_STATE_EVENTS) expect(commandsOf(signal, e), e).toEqual([hooks.state]);
    for (const e of STATE_EVENTS) expect(INJECTED_STATE_EVENTS).toContain(e);
    expect(commandsOf(signal, 'Stop')).not.toContain(hooks.stop);
    const hook = sessionSettings({ taskDir: '/w/m', mode: 'hook', hooks });
    expect(commandsOf(hook, 'Stop')).toEqual([hooks.state, hooks.stop]);
    expect(signal.worktree).toEqual({ bgIsolation: 'none' });
  });

  it("puts --settings right after the program, and merges into a user's own --settings (JSON or file)", () => {
    const ours = sessionSettings({ taskDir: '/w/m', mode: 'signal', hooks });
    const plain = withSessionSettings(['claude', '/autodeck-auto /w/m'], ours, () => ({}));
    expect(plain[0]).toBe('claude');
    expect(plain[1]).toBe('--settings');
    expect(JSON.parse(plain[2]!)).toEqual(ours);
    expect(plain[3]).toBe('/autodeck-auto /w/m');

    const user = { model: 'opus', permissions: { allow: ['Bash(npm test)'], deny: ['Bash(rm:*)'] }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] }, worktree: { bgIsolation: 'worktree' } };
    for (const argv of [['claude', '--settings', JSON.stringify(user), 'go'], ['claude', `--settings=${JSON.stringify(user)}`, 'go']]) {
      const out = withSessionSettings(argv, ours, (v) => readUserSettingsArg(v, '/'));
      expect(out).toHaveLength(argv.length);
      const at = findSettingsArg(out)!;
      const merged = JSON.parse(at.value) as Record<string, unknown>;
      expect(merged).toMatchObject({ model: 'opus', permissions: { deny: ['Bash(rm:*)'] }, worktree: { bgIsolation: 'worktree' } });
      expect((merged.permissions as { allow: string[] }).allow).toEqual(['Bash(npm test)', ...protocolPermissions('/w/m')]);
      expect(commandsOf(merged, 'Stop')).toEqual(['say done', hooks.state]);
      expect(out.at(-1)).toBe('go');
    }

    const dir = mkdtempSync(join(tmpdir(), 'autodeck-settings-'));
    writeFileSync(join(dir, 'mine.json'), JSON.stringify({ env: { A: '1' } }));
    const fromFile = withSessionSettings(['claude', '--settings', 'mine.json'], ours, (v) => readUserSettingsArg(v, dir));
    expect(JSON.parse(fromFile[2]!)).toMatchObject({ env: { A: '1' }, worktree: { bgIsolation: 'none' } });
    expect(() => readUserSettingsArg('missing.json', dir)).toThrow(/cannot read .*missing\.json \(ENOENT\)/);
    expect(() => readUserSettingsArg('{not json', dir)).toThrow(/not valid JSON/);
    writeFileSync(join(dir, 'list.json'), '[1]');
    expect(() => readUserSettingsArg('list.json', dir)).toThrow(/not a JSON object/);
  });

  it('an argument after -- is a prompt, not a flag', () => {
    expect(findSettingsArg(['claude', '--', '--settings', '{}'])).toBeUndefined();
    expect(mergeSessionSettings({}, { hooks: {}, permissions: { allow: [] }, worktree: { bgIsolation: 'none' } })).toEqual({
      hooks: {}, permissions: { allow: [] }, worktree: { bgIsolation: 'none' },
    });
  });
});
