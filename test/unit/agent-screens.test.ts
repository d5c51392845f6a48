import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { answerKeys, classifyScreen } from '../../src/agents/classify.js';
import { keysForLabel, menuOptions } from '../../src/agents/dialogs.js';
import { PROFILES } from '../../src/agents/profiles.js';
import type { AgentProfile } from '../../src/config/schema.js';
import { decide } from '../../src/policy/decide.js';
import { EMPTY_POLICY, parsePolicy, type ApprovalPolicy, type PolicyContext } from '../../src/policy/rules.js';
import { screenRequest } from '../../src/policy/screenRequest.js';

/*
 * The real Codex CLI 0.171.0 and Gemini CLI 0.61.0 screens (test/fixtures/screens/<agent>/<version>/,
 * captured in tmux and through autodeck's PTY): the keys each profile sends, the dialogs it
 * answers by label, quota lines that are history, and the whole request behind a prompt.
 */

const SCREENS = fileURLToPath(new URL('../fixtures/screens/', import.meta.url));
const read = (file: string): string[] => readFileSync(SCREENS + file, 'utf8').replace(/\n$/, '').split('\n');
const CODEX = 'codex/0.171.0/';
const GEMINI = 'gemini/0.61.0/';
const DOWN = '\x1b[B';

const look = (agent: AgentProfile, file: string) => {
  const lines = read(file);
  const c = classifyScreen(PROFILES[agent], lines);
  return { c, keys: answerKeys(PROFILES[agent], c, lines), lines };
};

describe('keys per captured screen', () => {
  it.each([
    // Codex names its keys: `1. Yes, proceed (y)`
    ['codex', `${CODEX}approval-exec.txt`, 'permission_prompt', ['y']],
    ['codex', `${CODEX}approval-exec-pty.txt`, 'permission_prompt', ['y']],
    // the switch-model menu is closed with Esc (its third option would change the user's settings)
    ['codex', `${CODEX}rate-limit-nudge.txt`, 'continue_prompt', ['\x1b']],
    ['codex', `${CODEX}trust-dialog.txt`, 'question', undefined],
    ['codex', `${CODEX}sign-in.txt`, 'question', undefined],
    ['gemini', `${GEMINI}approval-shell.txt`, 'permission_prompt', ['\r']],
    ['gemini', `${GEMINI}approval-write.txt`, 'permission_prompt', ['\r']],
    // the key from GEMINI_API_KEY is the user's choice: Enter takes it
    ['gemini', `${GEMINI}auth-dialog.txt`, 'continue_prompt', ['\r']],
    ['gemini', `${GEMINI}api-key-prefilled.txt`, 'continue_prompt', ['\r']],
    // no key anywhere: a person pastes one; trusting a folder is theirs to decide
    ['gemini', `${GEMINI}api-key-dialog.txt`, 'question', undefined],
    ['gemini', `${GEMINI}trust-dialog.txt`, 'question', undefined],
  ] as const)('%s %s', (agent, file, kind, keys) => {
    const { c, keys: sent } = look(agent, file);
    expect(c.kind).toBe(kind);
    expect(sent).toEqual(keys);
  });

  it('a usage limit with the switch-model menu under it: a quota stop, and the menu closed at once', () => {
    const { c } = look('codex', `${CODEX}usage-limit.txt`);
    expect(c).toMatchObject({ kind: 'quota', dialog: { name: 'switch-model menu', keys: ['\x1b'], when: 'now' } });
    expect(c.quotaLine).toMatch(/hit your usage limit/);
    expect(c.quotaReset).toMatch(/^try again at \d{1,2}:\d{2} PM\.$/);
  });

  it("Gemini CLI's quota dialog is answered `Keep trying` only when the wait probes", () => {
    const { c, keys } = look('gemini', `${GEMINI}quota-dialog.txt`);
    expect(c).toMatchObject({ kind: 'quota', quotaLine: expect.stringMatching(/Usage limit reached for all Pro models/), dialog: { name: 'quota dialog', keys: ['\r'], when: 'probe' } });
    expect(c.quotaReset).toBeUndefined();
    expect(keys).toBeUndefined(); // nothing at once: the wait decides when
  });

  it("a quota dialog's reset on the line under it is read", () => {
    expect(look('gemini', `${GEMINI}quota-dialog-reset.txt`).c).toMatchObject({ kind: 'quota', quotaReset: expect.stringMatching(/^resets at \d{1,2}:\d{2} PM UTC\.$/) });
  });

  it('an option chosen by its label: the arrow keys from the highlighted one, then Enter', () => {
    const lines = read(`${GEMINI}quota-dialog.txt`);
    const text = lines.join('\n');
    expect(menuOptions(text).map((o) => [o.n, o.label, o.highlighted])).toEqual([[1, 'Keep trying', true], [2, 'Stop', false]]);
    expect(keysForLabel(text, /^Stop$/)).toEqual([DOWN, '\r']);
    expect(keysForLabel(text.replace('● 1. Keep trying', '  1. Keep trying').replace('  2. Stop', '● 2. Stop'), /^Keep trying$/)).toEqual(['\x1b[A', '\r']);
    expect(keysForLabel(text, /^Upgrade/)).toBeUndefined();
  });
});

describe('busy as the CLI really shows it', () => {
  it.each([
    ['codex', `${CODEX}idle-start.txt`, 'idle'], // the logo's braille art is no spinner
    ['codex', `${CODEX}idle-start-pty.txt`, 'idle'],
    ['codex', `${CODEX}busy-streaming-pause.txt`, 'busy'], // the answer streams, its status line hidden
    ['codex', `${CODEX}retry-reconnecting.txt`, 'busy'], // a 429 under a live retry is no stop
    ['codex', `${CODEX}usage-warning.txt`, 'idle'], // `⚠ 5h limit: 8% left · resets at …` is a warning
    ['codex', `${CODEX}retry-exhausted.txt`, 'quota'],
    ['gemini', `${GEMINI}busy-streaming-pause.txt`, 'busy'],
    ['gemini', `${GEMINI}retry-waiting.txt`, 'busy'],
  ] as const)('%s %s', (agent, file, kind) => {
    expect(look(agent, file).c.kind).toBe(kind);
  });
});

describe('a limit line older than the newest prompt or answer is history', () => {
  it.each([
    ['codex', `${CODEX}usage-limit-history.txt`],
    ['gemini', `${GEMINI}quota-history.txt`],
  ] as const)('%s %s', (agent, file) => {
    const { c, lines } = look(agent, file);
    expect(c.kind).toBe('idle');
    // the same screen cut right after the limit line: a stop
    const at = lines.findIndex((l) => /hit your usage limit|exhausted your daily quota/.test(l));
    const cut = [...lines.slice(0, at + 3), ...lines.slice(-8)];
    expect(classifyScreen(PROFILES[agent], cut).kind).toBe('quota');
  });

  it('for Claude Code too: an answer under the limit line', () => {
    const RULE = '─'.repeat(100);
    const limited = ['❯ go', "  ⎿  You've hit your session limit · resets 5am (UTC)", '', RULE, '❯\u00a0', RULE];
    expect(classifyScreen(PROFILES.claude, limited).kind).toBe('quota');
    const later = ['❯ go', "  ⎿  You've hit your session limit · resets 5am (UTC)", '', '❯ Please continue', '', '● Picking up where I left off.', '', RULE, '❯\u00a0', RULE];
    expect(classifyScreen(PROFILES.claude, later).kind).toBe('idle');
  });
});

const ctx: PolicyContext = { projectDir: '/tmp/autodeck-codex-capture/proj', cwd: '/tmp/autodeck-codex-capture/proj', home: '/root', tempDirs: ['/tmp'] };
const policy = (rules: unknown[]): ApprovalPolicy => {
  const p = parsePolicy({ rules });
  if ('error' in p) throw new Error(p.error);
  return p.value;
};
const LONG = 'printf \'%s\\n\' "first line of a rather long report" "second line of the same report" "third line" > report-of-a-long-name.txt && git status --short && echo all done';

describe('the whole request behind a captured prompt', () => {
  it.each([
    ['codex', `${CODEX}approval-exec.txt`, { tool: 'Bash', command: 'echo hi > yes.txt' }],
    ['codex', `${CODEX}approval-exec-pty.txt`, { tool: 'Bash', command: 'echo hi > pty.txt' }],
    // wrapped at the screen's edge onto a line indented as the others
    ['codex', `${CODEX}approval-exec-long.txt`, { tool: 'Bash', command: LONG }],
    ['gemini', `${GEMINI}approval-shell.txt`, { tool: 'Bash', command: 'echo hi > once.txt' }],
    ['gemini', `${GEMINI}approval-shell-pty.txt`, { tool: 'Bash', command: 'echo hi > pty.txt' }],
    // in a box inside the dialog's box, wrapped at the inner box's width
    ['gemini', `${GEMINI}approval-shell-long.txt`, { tool: 'Bash', command: LONG }],
    ['gemini', `${GEMINI}approval-write.txt`, { tool: 'Write', path: 'notes.md' }],
  ] as const)('%s %s', (agent, file, expected) => {
    const req = screenRequest(agent, read(file))!;
    expect(req).toMatchObject({ ...expected, source: 'screen' });
    expect(req.complete).toBeUndefined();
  });

  it('a Bash rule sees all of it: `git status` in the middle of the long command', () => {
    for (const [agent, file] of [['codex', `${CODEX}approval-exec-long.txt`], ['gemini', `${GEMINI}approval-shell-long.txt`]] as const) {
      const req = screenRequest(agent, read(file))!;
      expect(decide(req, policy([{ deny: 'Bash(git status*)' }]), ctx).decision).toBe('deny');
      expect(decide(req, policy([{ allow: 'Bash(printf *)' }]), ctx).decision).toBe('allow'); // every command in it: printf, git status, echo
    }
  });

  it('a request cut at the screen is incomplete: never allowed by a rule that needs its text', () => {
    // the Codex command's end scrolled off the bottom (no blank line before the menu on the screen)
    const codex = read(`${CODEX}approval-exec-long.txt`);
    const at = codex.findIndex((l) => /^\s*\$ printf/.test(l));
    const cutCodex = screenRequest('codex', codex.slice(0, at + 1))!;
    expect(cutCodex).toMatchObject({ tool: 'Bash', complete: false });
    // the Gemini inner box's top scrolled off the top
    const gemini = read(`${GEMINI}approval-shell-long.txt`);
    const top = gemini.findIndex((l) => /│ ╭─+╮ │/.test(l));
    const cutGemini = screenRequest('gemini', gemini.slice(top + 2))!;
    expect(cutGemini).toMatchObject({ tool: 'Bash', complete: false });
    for (const req of [cutCodex, cutGemini]) {
      expect(decide(req, policy([{ allow: 'Bash(printf *)' }]), ctx)).toMatchObject({ decision: 'ask', rule: 'incomplete' });
      expect(decide(req, EMPTY_POLICY, ctx)).toMatchObject({ decision: 'ask', rule: 'incomplete' });
      // a rule on the whole tool still decides a deny
      expect(decide(req, policy([{ deny: 'Bash' }]), ctx)).toMatchObject({ decision: 'deny', rule: 'deny Bash' });
    }
    // a command cut with `…`, whatever drew it
    const ellipsis = ['  Would you like to run the following command?', '', '  $ rm -rf build && git push --fo…', '', '› 1. Yes, proceed (y)'];
    expect(screenRequest('codex', ellipsis)).toMatchObject({ complete: false });
  });
});
