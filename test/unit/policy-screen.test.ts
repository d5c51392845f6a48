import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { AgentProfile } from '../../src/config/schema.js';
import { hookRequest, screenRequest } from '../../src/policy/screenRequest.js';

const SCREENS = fileURLToPath(new URL('../fixtures/screens/', import.meta.url));
const lines = (file: string): string[] => readFileSync(SCREENS + file, 'utf8').split('\n');

/*
 * The permission prompts on real screens: Claude Code 2.1.197 captured here, Codex and
 * Gemini CLI from their own test snapshots (test/fixtures/screens/<agent>/<source>/README.md).
 */
describe('screenRequest over captured and collected permission prompts', () => {
  const rows: [AgentProfile, string, Record<string, unknown>][] = [
    ['claude', 'claude/2.1.197/permission-prompt.txt', { tool: 'Bash', command: 'echo hi > x.txt' }],
    ['claude', 'claude/2.1.197/permission-prompt-long.txt', {
      tool: 'Bash',
      command: 'cd /tmp/autodeck-claude-capture && rm -rf build-cache-of-a-rather-long-name another-directory-to-remove && git push --force origin main && echo all done',
    }],
    ['claude', 'claude/2.1.197/permission-prompt-no-description.txt', { tool: 'Bash', command: 'git reset --hard HEAD~1' }],
    ['claude', 'claude/2.1.197/permission-prompt-pipe.txt', { tool: 'Bash', command: 'curl -fsSL https://example.invalid/install.sh | sh' }],
    ['claude', 'claude/2.1.197/permission-prompt-write.txt', { tool: 'Write', path: '/tmp/autodeck-claude-capture/outside.txt' }],
    ['claude', 'claude/2.1.197/permission-prompt-edit.txt', { tool: 'Edit', path: 'notes.md', text: 'Edit: notes.md — Do you want to make this edit to notes.md?' }],
    ['codex', 'codex/codex-tui-snapshots/001-approval-modal-exec.txt', { tool: 'Bash', command: 'echo hello world' }],
    ['codex', 'codex/codex-tui-snapshots/007-exec-approval-modal-exec.txt', { tool: 'Bash', command: 'echo hello world' }],
    ['codex', 'codex/ccmanager-dbed136/004-should-detect-waiting-input-state-for-multiline-do-you-want-.txt', { tool: 'Bash', command: 'git add test.ts' }],
    ['codex', 'codex/codex-tui-snapshots/002-approval-modal-patch.txt', { tool: 'Edit' }],
    ['codex', 'codex/codex-tui-snapshots/005-approval-overlay-permissions-prompt.txt', { tool: 'unknown', text: 'Would you like to grant these permissions?' }],
    ['gemini', 'gemini/gemini-cli-5411f11/011-toolconfirmationmessage-with-folder-trust-for-exec-confirmations-shoul.txt', { tool: 'Bash', command: 'echo "hello"' }],
    ['gemini', 'gemini/gemini-cli-5411f11/004-toolconfirmationmessage-should-display-multiple-commands-for-exec-type.txt', { tool: 'Bash', command: 'echo "hello"\nls -la\nwhoami' }],
    ['gemini', 'gemini/gemini-cli-5411f11/007-toolconfirmationmessage-should-render-multiline-shell-scripts-with-cor.txt', { tool: 'Bash', command: 'echo "hello"\nfor i in 1 2 3; do\n  echo $i\ndone' }],
    ['gemini', 'gemini/ccmanager-dbed136/003-should-detect-waiting-input-when-allow-execution-prompt-is-p.txt', { tool: 'Bash', command: 'npm install' }],
    ['gemini', 'gemini/gemini-cli-5411f11/015-toolconfirmationmessage-with-folder-trust-for-mcp-confirmations-should.txt', { tool: 'mcp__test-server__test-tool' }],
    ['gemini', 'gemini/gemini-cli-5411f11/013-toolconfirmationmessage-with-folder-trust-for-info-confirmations-shoul.txt', { tool: 'WebFetch', url: 'https://example.com' }],
    ['gemini', 'gemini/gemini-cli-5411f11/009-toolconfirmationmessage-with-folder-trust-for-edit-confirmations-shoul.txt', { tool: 'Edit' }],
  ];
  it.each(rows)('%s %s', (agent, file, expected) => {
    const req = screenRequest(agent, lines(file));
    expect(req).toMatchObject({ ...expected, source: 'screen' });
    expect(req!.text).not.toMatch(/[\x00-\x1f]/);
  });

  it('a Claude Code screen without a prompt gives nothing', () => {
    expect(screenRequest('claude', lines('claude/2.1.197/idle.txt'))).toBeUndefined();
    expect(screenRequest('claude', lines('claude/2.1.197/permission-rejected.txt'))).toBeUndefined();
  });

  it('the request text carries the question', () => {
    expect(screenRequest('claude', lines('claude/2.1.197/permission-prompt-pipe.txt'))!.text).toBe('Bash: curl -fsSL https://example.invalid/install.sh | sh — Do you want to proceed?');
  });
});

describe('hookRequest (Claude Code PermissionRequest payload)', () => {
  it('reads tool_name and tool_input', () => {
    expect(hookRequest({ tool_name: 'Bash', tool_input: { command: 'git push -f', description: 'x' } })).toMatchObject({ tool: 'Bash', command: 'git push -f', source: 'hook' });
    expect(hookRequest({ tool_name: 'Write', tool_input: { file_path: '/etc/x', content: 'y' } })).toMatchObject({ tool: 'Write', path: '/etc/x' });
    expect(hookRequest({ notification_type: 'permission_prompt' })).toBeUndefined();
  });
});

describe('the state hook keeps what a permission asks for', () => {
  it('PermissionRequest keeps the command or path (never file contents); a later permission Notification carries them', async () => {
    const { stateOfEvent, carriedDetail } = await import('../../src/hooks/state.js');
    const req = stateOfEvent({ hook_event_name: 'PermissionRequest', tool_name: 'Write', tool_input: { file_path: '/etc/x', content: 'secret body' } })!;
    expect(req.detail).toEqual({ tool_name: 'Write', tool_input: { file_path: '/etc/x' } });
    const note = stateOfEvent({ hook_event_name: 'Notification', notification_type: 'permission_prompt', message: 'Claude needs your permission to use Write' })!;
    expect(carriedDetail(note, { state: 'waiting', detail: req.detail })).toMatchObject({ notification_type: 'permission_prompt', tool_name: 'Write', tool_input: { file_path: '/etc/x' } });
    expect(carriedDetail(note, { state: 'busy', detail: {} })).toEqual(note.detail);
  });
});
