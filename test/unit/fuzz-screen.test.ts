import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Terminal } from '@xterm/headless';
import { PROFILES, SCREEN_KINDS } from '../../src/agents/profiles.js';
import { answerKeys, classifyScreen } from '../../src/agents/classify.js';
import { findQuotaMessage } from '../../src/agents/quota.js';
import { screenRequest } from '../../src/policy/screenRequest.js';
import { screenQuestion } from '../../src/supervisor/needsYouScreen.js';
import { errorBanner } from '../../src/supervisor/hung.js';
import { withHookState } from '../../src/supervisor/screenLook.js';
import { AGENT_STATES } from '../../src/store/agentState.js';
import { hasControl, hostileBytes, hostileString, quick, runs } from '../helpers/hostile.js';

// Property-based: what an agent prints, byte for byte, through the terminal emulator the
// sessions use (@xterm/headless, as src/sessions/pty.ts sets it up) into the screen
// classifier and what reads the screen after it (the answer keys, the permission request,
// the question, the API error banner, the quota message). The corpus to start from is every screen
// captured under test/fixtures/screens. For any bytes: no throw, a known kind, printable
// one-line texts, within a generous bound.

const SCREENS = fileURLToPath(new URL('../fixtures/screens/', import.meta.url));
function screens(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return screens(path);
    return name.endsWith('.txt') ? [readFileSync(path, 'utf8')] : [];
  });
}
const captured = screens(SCREENS);

const term = new Terminal({ cols: 120, rows: 40, scrollback: 100, allowProposedApi: true });
afterAll(() => term.dispose());

/** The screen after `data`, as a session's screen() reads it. */
function screenAfter(data: string | Uint8Array): Promise<string[]> {
  term.reset();
  return new Promise((resolve) => term.write(data, () => {
    const buf = term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < term.rows; y++) lines.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '');
    resolve(lines);
  }));
}

const ESC = fc.constantFrom('\x1b[2J', '\x1b[H', '\x1b[31m', '\x1b[0m', '\x1b[?1049h', '\x1b[?1049l', '\x1b]0;x\x07', '\x1b[5A', '\x1b[200~', '\x1b[201~', '\r', '\n', '\x08', '\t', '\x1b[38;2;1;2;3m', '\x1bc', '\x1b[999;999H');
/** A captured screen with escape sequences and hostile text spliced in. */
const spliced = fc.tuple(fc.constantFrom(...captured), fc.array(fc.tuple(fc.nat(), fc.oneof(ESC, hostileString.filter((s) => s.length < 200))), { maxLength: 6 }))
  .map(([text, cuts]) => cuts.reduce((t, [at, ins]) => { const i = at % (t.length + 1); return t.slice(0, i) + ins + t.slice(i); }, text.replace(/\n/g, '\r\n')));
const bytes = fc.oneof({ weight: 2, arbitrary: spliced }, { weight: 1, arbitrary: fc.constantFrom(...captured).map((t) => t.replace(/\n/g, '\r\n')) }, hostileBytes, hostileString);

const KINDS: readonly string[] = [...SCREEN_KINDS, 'unknown'];

describe('terminal bytes into the classifier', () => {
  it('every profile: a known kind, answers of strings, printable one-line texts', async () => {
    await fc.assert(fc.asyncProperty(bytes, async (data) => {
      const lines = await screenAfter(data);
      for (const profile of Object.values(PROFILES)) {
        const c = quick(() => classifyScreen(profile, lines));
        expect(KINDS).toContain(c.kind);
        const keys = quick(() => answerKeys(profile, c, lines));
        if (keys) expect(keys.every((k) => typeof k === 'string')).toBe(true);
        quick(() => profile.hashedLines(lines));
        const request = quick(() => screenRequest(profile.name, lines));
        if (request) expect(hasControl(request.text)).toBe(false);
        for (const state of [undefined, ...AGENT_STATES]) {
          expect(KINDS).toContain(withHookState({ version: 0, hash: '', classification: c, answer: keys }, state, profile).classification.kind);
        }
      }
      const question = quick(() => screenQuestion(lines));
      if (question !== undefined) expect(hasControl(question)).toBe(false);
      const banner = quick(() => errorBanner(lines));
      if (banner !== undefined) expect(banner.length).toBeLessThanOrEqual(200);
      const quota = quick(() => findQuotaMessage(lines.join('\n')));
      if (quota) expect(typeof quota.line).toBe('string');
    }), { numRuns: runs(60) });
  });

  it('the screen readers on lines of any text, not only what an emulator draws', () => {
    fc.assert(fc.property(fc.array(hostileString, { maxLength: 40 }), (lines) => {
      for (const profile of Object.values(PROFILES)) {
        const c = quick(() => classifyScreen(profile, lines));
        quick(() => answerKeys(profile, c, lines));
        quick(() => screenRequest(profile.name, lines));
      }
      quick(() => screenQuestion(lines));
      quick(() => errorBanner(lines));
      quick(() => findQuotaMessage(lines.join('\n')));
    }), { numRuns: runs(60) });
  });
});
