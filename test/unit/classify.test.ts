import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerKeys, classifyScreen } from '../../src/agents/classify.js';
import { PROFILES, type ScreenKind } from '../../src/agents/profiles.js';
import { resolveProfile } from '../../src/agents/userProfiles.js';
import type { AgentProfile } from '../../src/config/schema.js';

const RULE = '─'.repeat(118);
const screen = (...lines: string[]): string[] => [...lines, ...Array(Math.max(0, 40 - lines.length)).fill('')];

// Transcribed from CLAUDE-CODE.md (observed with Claude Code 2.1.197); the real captures
// are checked below from test/fixtures/screens/.
const CLAUDE_IDLE = screen('✻ Welcome to Claude Code!', '', '❯ hi', '⏺ Hello! How can I help?', '', '✻ Baked for 3s', '', RULE, '❯\u00a0', RULE, '  ? for shortcuts');
const CLAUDE_BUSY = screen('❯ fix the tests', '', '✶ Pondering… (12s · ↓ 340 tokens)', '', RULE, '❯\u00a0', RULE, '  esc to interrupt');
const CLAUDE_PERMISSION = screen('⏺ Bash(echo hi > x.txt)', RULE, ' Bash command', '', '   echo hi > x.txt', '   Write hi to x.txt', '',
  ' Do you want to proceed?', ' ❯ 1. Yes', "   2. Yes, and don't ask again for echo commands in /w", '   3. No, and tell Claude what to do differently (esc)', '',
  ' Esc to cancel · Tab to amend · ctrl+e to explain');
const CLAUDE_QUOTA_MENU = screen("  ⎿  You've hit your session limit · resets 7:51am (UTC)", '', ' What do you want to do?', '',
  ' ❯ 1. Stop and wait for limit to reset', '   2. Upgrade your plan', '', ' Enter to confirm · Esc to cancel');
const CLAUDE_API_KEY = screen(' Do you want to use this API key?', '', '   1. Yes', ' ❯ 2. No (recommended)', '', ' Enter to confirm · Esc to exit');

const cases: [string, AgentProfile, string[], ScreenKind, string[] | undefined][] = [
  ['Claude idle at its prompt', 'claude', CLAUDE_IDLE, 'idle', undefined],
  ['Claude busy', 'claude', CLAUDE_BUSY, 'busy', undefined],
  ['Claude permission menu', 'claude', CLAUDE_PERMISSION, 'permission_prompt', ['\r']],
  ['Claude quota menu (wait option)', 'claude', CLAUDE_QUOTA_MENU, 'quota', ['1']],
  ['Claude API-key dialog (cursor on No: press 1)', 'claude', CLAUDE_API_KEY, 'permission_prompt', ['1']],
  ['Claude compacting', 'claude', screen('✻ Compacting conversation… (8s)', RULE, '❯\u00a0', RULE), 'compacting', undefined],
  ['Claude quota on screen', 'claude', screen('  ⎿  5-hour limit reached ∙ resets 5am', RULE, '❯\u00a0', RULE), 'quota', undefined],
  ['a warning is no quota', 'claude', screen("  ⎿  You've used 92% of your session limit · resets 5am", RULE, '❯\u00a0', RULE), 'idle', undefined],
  ['a plain (y/n) prompt', 'generic', screen('Overwrite config? (y/n) '), 'yes_no_prompt', ['y', '\r']],
  ['a [y/N] prompt', 'generic', screen('Proceed with install [y/N]: '), 'yes_no_prompt', ['y', '\r']],
  ['Press Enter to continue', 'generic', screen('Done.', 'Press Enter to continue'), 'continue_prompt', ['\r']],
  ['--More--', 'generic', screen('line', '--More--'), 'continue_prompt', ['\r']],
  ['a bare prompt', 'generic', screen('● Planning…', '> '), 'idle', undefined],
  ['a shell-like "$ " is no idle agent and no exit', 'generic', screen('output', '$ '), 'unknown', undefined],
  ['a prompt far up the screen is history', 'generic', screen('> ', 'working', 'still working'), 'unknown', undefined],
  ['aider confirm (transcribed)', 'aider', screen('Add file to the chat? (Y)es/(N)o/(D)on\'t ask again [Yes]: '), 'yes_no_prompt', ['y', '\r']],
  ['aider prompt (transcribed)', 'aider', screen('Tokens: 2.1k sent', '> '), 'idle', undefined],
  ['codex approval (transcribed)', 'codex', screen('Would you like to run the following command?', '  $ npm test', '▌ Yes (y)', '  No (esc)'), 'permission_prompt', ['y']],
  ['gemini confirmation (transcribed)', 'gemini', screen('Allow execution of: npm?', '● 1. Yes, allow once', '  2. Yes, allow always', '  3. No'), 'permission_prompt', ['\r']],
  ['gemini quota (transcribed)', 'gemini', screen('✕ [API Error: Quota exceeded for quota metric \'Gemini 2.5 Pro Requests\' (RESOURCE_EXHAUSTED)]', '> Type your message'), 'quota', undefined],
];

describe('classifyScreen', () => {
  it.each(cases)('%s', (_, profile, lines, kind, keys) => {
    const c = classifyScreen(PROFILES[profile], lines);
    expect(c.kind).toBe(kind);
    expect(answerKeys(PROFILES[profile], c, lines)).toEqual(keys);
  });
});

describe('what autodeck types', () => {
  it.each(Object.keys(PROFILES) as AgentProfile[])('never matches a pattern of the %s profile', (name) => {
    const profile = PROFILES[name];
    const typed = profile.continuationMessage;
    // typed into a prompt and echoed, or left on the last line: no prompt kind may match
    for (const lines of [screen(`> ${typed}`), screen(`❯\u00a0${typed}`), screen(typed)]) {
      const kind = classifyScreen(profile, lines).kind;
      expect(['quota', 'permission_prompt', 'yes_no_prompt', 'continue_prompt'], `${name}: ${lines[0]}`).not.toContain(kind);
    }
    // an answered prompt no longer reads as one
    expect(classifyScreen(profile, screen('Overwrite config? (y/n) y')).kind).not.toBe('yes_no_prompt');
  });
});

describe('user patterns from the settings file', () => {
  it('are tried before the built-in ones of their kind', () => {
    const { profile, errors } = resolveProfile('generic', { generic: { patterns: [{ kind: 'yes_no_prompt', regex: 'Ship it\\?', region: 'bottom' }] } });
    expect(errors).toEqual([]);
    expect(classifyScreen(profile, screen('Ship it?')).kind).toBe('yes_no_prompt');
    expect(classifyScreen(PROFILES.generic, screen('Ship it?')).kind).toBe('unknown');
  });
  it.each([
    [{ generic: { patterns: [{ kind: 'nap', regex: 'x' }] } }, /patterns\[0\]\.kind/],
    [{ generic: { patterns: [{ kind: 'idle', regex: '(' }] } }, /patterns\[0\]\.regex/],
    [{ generic: { patterns: [{ kind: 'idle', regex: 'x', region: 'top' }] } }, /region/],
    [{ generic: { colour: 'red' } }, /generic\.colour: unknown key/],
    [{ copilot: {} }, /profiles\.copilot: not a profile/],
    [{ generic: { continuationMessage: '' } }, /continuationMessage/],
  ])('reject %j with an error naming the key', (ext, message) => {
    const { errors } = resolveProfile('generic', ext);
    expect(errors.join(' ')).toMatch(message);
  });
});

// Screens captured from the real programs: each fixture folder's manifest names the expected kind.
const FIXTURES = fileURLToPath(new URL('../fixtures/screens', import.meta.url));
const captured = existsSync(FIXTURES)
  ? readdirSync(FIXTURES).flatMap((profile) => {
    const dir = join(FIXTURES, profile);
    if (!existsSync(dir) || !(profile in PROFILES)) return [];
    return readdirSync(dir).flatMap((version) => {
      const manifest = join(dir, version, 'manifest.json');
      if (!existsSync(manifest)) return [];
      const { fixtures } = JSON.parse(readFileSync(manifest, 'utf8')) as { fixtures: { file: string; classification: ScreenKind; source: string }[] };
      return fixtures.map((e) => [`${profile} ${version} ${e.file} (${e.source})`, profile as AgentProfile, join(dir, version, e.file), e.classification] as const);
    });
  })
  : [];

describe.runIf(captured.length > 0)('captured screens', () => {
  it.each(captured)('%s', (_, profile, file, expected) => {
    const lines = readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
    const kind = classifyScreen(PROFILES[profile], lines).kind as string;
    // An exit is an event of the session, never read from a screen: such a screen must only not be "answered".
    if (expected === ('exited' as string)) expect(['permission_prompt', 'yes_no_prompt', 'continue_prompt', 'quota']).not.toContain(kind);
    else expect(kind).toBe(expected);
  });
});
