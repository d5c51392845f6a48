import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { answerKeys, classifyScreen } from '../../src/agents/classify.js';
import { readDialog } from '../../src/agents/dialogs.js';
import { findOption, KEY, keysFor, readMenu } from '../../src/agents/menu.js';
import { PROFILES } from '../../src/agents/profiles.js';
import { CLAUDE_CODE_NEWEST, CLAUDE_CODE_OLDEST } from '../../src/agents/claudeVersion.js';
import { screenLines } from '../bench/corpusData.js';

// Claude Code's own dialogs on the screens captured at both ends of the supported range
// (test/fixtures/screens/claude/<version>/, each manifest names the dialog a screen shows).

const dir = (v: string) => fileURLToPath(new URL(`../fixtures/screens/claude/${v}/`, import.meta.url));
const lines = (v: string, file: string) => screenLines(`${dir(v)}${file}`);

interface Entry { file: string; dialog?: string; classification: string }
const manifest = (v: string): Entry[] => (JSON.parse(readFileSync(`${dir(v)}manifest.json`, 'utf8')) as { fixtures: Entry[] }).fixtures;

describe.each([CLAUDE_CODE_OLDEST, CLAUDE_CODE_NEWEST])('dialogs captured from Claude Code %s', (version) => {
  const entries = existsSync(`${dir(version)}manifest.json`) ? manifest(version) : [];

  it('every screen the manifest names a dialog for reads as that dialog; no other screen reads as one', () => {
    expect(entries.length).toBeGreaterThan(10);
    for (const e of entries) {
      if (!e.file.endsWith('.txt') || e.classification === 'exited') continue;
      expect(readDialog(lines(version, e.file))?.id, e.file).toBe(e.dialog);
    }
  });

  it('the trust, API-key and bypass dialogs are never answered without the user\'s word', () => {
    for (const e of entries.filter((x) => x.dialog === 'trust-folder' || x.dialog === 'api-key' || x.dialog === 'bypass-warning')) {
      const l = lines(version, e.file);
      expect(readDialog(l)!.keys, e.file).toBeUndefined();
      expect(answerKeys(PROFILES.claude, classifyScreen(PROFILES.claude, l), l), e.file).toBeUndefined();
    }
  });

  it('with the user\'s word, the trust and bypass dialogs get their Yes by label (the refusing option is highlighted)', () => {
    const trust = readDialog(lines(version, 'trust-dialog.txt'), { trustedProject: true })!;
    expect(trust.choice).toMatch(/^Yes, I trust this folder/);
    // 2.1.197 numbers its menu with the cursor on Yes: Enter; 2.1.332 has no numbers, `❯ No, exit` over the Yes: Down, Enter
    expect(trust.keys).toEqual(version === CLAUDE_CODE_OLDEST ? [KEY.enter] : [KEY.down, KEY.enter]);
    const bypass = readDialog(lines(version, 'bypass-warning.txt'), { bypassPermissions: true })!;
    expect(bypass.choice).toBe('Yes, I accept');
    expect(bypass.keys).toEqual(version === CLAUDE_CODE_OLDEST ? ['2'] : [KEY.down, KEY.enter]);
    // the API key: a person, always
    expect(readDialog(lines(version, 'api-key-dialog.txt'), { trustedProject: true, bypassPermissions: true })!.keys).toBeUndefined();
  });
});

describe(`dialogs that would change the user's settings (Claude Code ${CLAUDE_CODE_NEWEST})`, () => {
  it('the offer to make auto mode the default: No, keep manual mode, with the arrows', () => {
    const d = readDialog(lines(CLAUDE_CODE_NEWEST, 'auto-default-offer.txt'))!;
    expect(d).toMatchObject({ id: 'auto-default-offer', choice: 'No, keep manual mode', keys: [KEY.down, KEY.enter] });
    expect(d.text).toBe('Make auto mode your default permission mode?');
    // its highlighted option would have been Enter: never what autodeck sends
    const l = lines(CLAUDE_CODE_NEWEST, 'auto-default-offer.txt');
    expect(answerKeys(PROFILES.claude, classifyScreen(PROFILES.claude, l), l)).toEqual([KEY.down, KEY.enter]);
  });

  it('the fullscreen renderer offer: Not now, by its number', () => {
    expect(readDialog(lines(CLAUDE_CODE_NEWEST, 'fullscreen-offer.txt'))).toMatchObject({ id: 'fullscreen-offer', choice: 'Not now', keys: ['2'] });
  });

  it('auto mode cannot check actions: stay in auto mode (Enter), which changes nothing beyond the session', () => {
    const l = lines(CLAUDE_CODE_NEWEST, 'auto-mode-unavailable.txt');
    expect(readDialog(l)).toMatchObject({ id: 'auto-mode-unavailable', keys: [KEY.enter] });
    expect(readDialog(l)!.text).toMatch(/^Auto mode can't check actions in this session/);
  });

  it('the permission menu without numbers: Yes is Down then Enter, never the highlighted No', () => {
    const l = lines(CLAUDE_CODE_NEWEST, 'permission-prompt-auto.txt');
    const c = classifyScreen(PROFILES.claude, l);
    expect(c.kind).toBe('permission_prompt');
    expect(readDialog(l)).toBeUndefined();
    expect(answerKeys(PROFILES.claude, c, l)).toEqual([KEY.down, KEY.enter]);
  });

  it('the numbered permission menu of 2.1.332: the plain Yes, never "switch to auto mode" or "always allow"', () => {
    for (const f of ['permission-prompt.txt', 'permission-prompt-no-description.txt', 'permission-prompt-pipe.txt', 'permission-prompt-write.txt', 'pretooluse-ask.txt']) {
      const l = lines(CLAUDE_CODE_NEWEST, f);
      expect(answerKeys(PROFILES.claude, classifyScreen(PROFILES.claude, l), l), f).toEqual([KEY.enter]);
    }
  });

  it('a dialog\'s words quoted in the conversation are no dialog', () => {
    const quoted = ['● The prompt said: Make auto mode your default permission mode?', '', '  ❯ Yes, set auto mode as my default permission mode', '', '─'.repeat(118), '❯\u00a0', '─'.repeat(118)];
    expect(readDialog(quoted)).toBeUndefined();
    expect(readDialog(['  Enter to stay in auto mode is what the docs say', '─'.repeat(118), '❯\u00a0', '─'.repeat(118), '  ⏵⏵ auto mode on'])).toBeUndefined();
  });
});

describe('menus read by their labels', () => {
  it('a numbered menu: the option by its number, Enter when the cursor is on it', () => {
    const menu = readMenu([' Do you want to proceed?', ' ❯ 1. Yes', "   2. Yes, and don't ask again for", '      /tmp/x', '   3. No', '', ' Esc to cancel'])!;
    expect(menu.options.map((o) => o.label)).toEqual(['Yes', "Yes, and don't ask again for", 'No']);
    expect(keysFor(menu, findOption(menu, /^No$/))).toEqual(['3']);
    expect(keysFor(menu, 0)).toEqual([KEY.enter]);
  });

  it('a menu without numbers: the arrows from the cursor, then Enter', () => {
    const menu = readMenu(['  Pick one', '    First', '    Second', '  ❯ Third', '    Fourth', '  Enter to confirm · Esc to cancel', '', ''])!;
    expect(menu.cursor).toBe(2);
    expect(keysFor(menu, findOption(menu, /^First/))).toEqual([KEY.up, KEY.up, KEY.enter]);
    expect(keysFor(menu, findOption(menu, /^Fourth/))).toEqual([KEY.down, KEY.enter]);
  });

  it('no cursor, no menu; a lone prompt line is no menu', () => {
    expect(readMenu(['  Yes', '  No'])).toBeUndefined();
    expect(readMenu(['─'.repeat(20), '❯ hello', '─'.repeat(20)])).toBeUndefined();
  });
});
