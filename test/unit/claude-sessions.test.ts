import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parseEntry, parseJobState, parseListing, withJobState, type ClaudeSession } from '../../src/claudeSessions/listing.js';
import { claudeView, needLine } from '../../src/claudeSessions/view.js';
import { phaseKey, transitionEvent } from '../../src/claudeSessions/transitions.js';
import { CLAUDE_CODE_NEWEST, CLAUDE_CODE_OLDEST } from '../../src/agents/claudeVersion.js';

// Claude Code's own list of its sessions, read from what the real releases printed
// (test/fixtures/claude-sessions/<version>/, captured by test/e2e/claude-sessions-capture.test.ts).

const FIXTURES = fileURLToPath(new URL('../fixtures/claude-sessions/', import.meta.url));
const fixture = (version: string, name: string): string => readFileSync(join(FIXTURES, version, name), 'utf8');
const NOW = Date.parse('2026-11-27T20:30:00Z');

function entry(version: string, scenario: string, name: string): ClaudeSession {
  const s = parseListing(fixture(version, `agents-${scenario}.json`)).sessions.find((x) => x.name === name);
  expect(s, `${scenario}: ${name}`).toBeDefined();
  const job = existsSync(join(FIXTURES, version, `job-${scenario}.json`)) ? parseJobState(fixture(version, `job-${scenario}.json`)) : undefined;
  return withJobState(s!, job);
}

for (const version of [CLAUDE_CODE_NEWEST, CLAUDE_CODE_OLDEST]) {
  describe(`the sessions Claude Code ${version} lists`, () => {
    it('an idle background session after its turn: idle, with its short and full ids', () => {
      const s = entry(version, 'idle', parseListing(fixture(version, 'agents-idle.json')).sessions[0]!.name);
      expect(s.kind).toBe('background');
      expect(s.id).toMatch(/^[0-9a-f]{8}$/);
      expect(s.sessionId.startsWith(s.id)).toBe(true);
      expect(claudeView(s, NOW)).toMatchObject({ phase: 'idle', word: 'idle', live: true });
    });

    it('waiting on a permission: needs you, with the request Claude Code names', () => {
      const s = entry(version, 'permission', 'write approved.txt');
      const v = claudeView(s, NOW);
      expect(v).toMatchObject({ phase: 'needs_you', word: 'needs you', need: { reason: 'permission' } });
      expect(v.need!.text).toContain('echo hi > approved.txt');
    });

    // (2.1.197 lists it as waiting on a `permission prompt`; its job's `needs` says it is a question)
    it('a question: needs you, the question and its options', () => {
      const s = entry(version, 'question', 'ask me');
      const v = claudeView(s, NOW);
      expect(v.need).toMatchObject({ reason: 'question' });
      expect(v.need!.text).toContain('Which colour should the button be?');
    });

    it('a usage limit (API key): the limit, no reset named', () => {
      const s = entry(version, 'limit-api-key', 'hit the limit');
      const v = claudeView(s, NOW);
      expect(v).toMatchObject({ phase: 'limit', word: 'limit', need: { reason: 'limit' } });
      expect(v.need!.text).toMatch(/429/);
      expect(v.need!.resetAt).toBeUndefined();
    });

    // (2.1.197 also opens its own menu about the limit: waiting, `dialog open`)
    it('a subscriber\'s usage limit: the reset, read against when the job was blocked', () => {
      const s = entry(version, 'limit-subscriber', 'subscriber limit');
      const v = claudeView(s, NOW);
      expect(v.phase).toBe('limit');
      expect(v.need!.text).toMatch(/hit your .*limit/);
      const reset = Date.parse(v.need!.resetAt!);
      // the capture asked for a reset an hour after it ran; the text gives minutes, the margin adds one
      expect(reset - s.updatedAt!).toBeGreaterThan(50 * 60_000);
      expect(reset - s.updatedAt!).toBeLessThan(62 * 60_000);
    });

    it('busy while its turn runs', () => {
      expect(claudeView(entry(version, 'busy', 'be slow'), NOW)).toMatchObject({ phase: 'working', live: true });
    });

    it('stopped ones stay listed with --all, without a pid or status', () => {
      const stopped = parseListing(fixture(version, 'agents-stopped.json')).sessions.filter((x) => x.state === 'stopped');
      expect(stopped.length).toBeGreaterThan(0);
      for (const s of stopped) {
        expect(s.pid).toBeUndefined();
        expect(claudeView(s, NOW)).toMatchObject({ phase: 'stopped', live: false });
      }
    });

    it('an interactive session: no short id, no state, its status alone', () => {
      const s = parseListing(fixture(version, 'agents-interactive.json')).sessions.find((x) => x.kind === 'interactive')!;
      expect(s.id).toBe('');
      expect(s.state).toBeUndefined();
      expect(claudeView(s, NOW)).toMatchObject({ phase: 'idle', live: true });
    });
  });
}

describe('reading a list Claude Code may change', () => {
  it('keeps an unknown field to show, and shows an unknown status or state as its own word', () => {
    const { sessions, skipped } = parseListing(JSON.stringify([
      { sessionId: 'a-1', id: 'a1', kind: 'background', name: 'x', cwd: '/p', pid: 5, status: 'thinking', state: 'pondering', mood: { calm: true } },
      { sessionId: 'b-2', id: 'b2', kind: 'cloud', name: 'y', cwd: '/p', state: 'resuming' },
    ]));
    expect(skipped).toBe(0);
    expect(sessions[0]!.extra).toEqual({ mood: '{"calm":true}' });
    expect(claudeView(sessions[0]!, NOW)).toMatchObject({ phase: 'other', word: 'thinking', live: true });
    expect(claudeView(sessions[1]!, NOW)).toMatchObject({ phase: 'other', word: 'resuming', live: false });
  });

  it('skips entries that name no session, and duplicates; refuses what is not a JSON array', () => {
    const { sessions, skipped } = parseListing(JSON.stringify([null, 3, { name: 'no ids' }, { pid: 7 }, { pid: 7 }, { id: 'abc' }]));
    expect(sessions.map((s) => s.key)).toEqual(['pid:7', 'id:abc']);
    expect(skipped).toBe(4);
    expect(() => parseListing('Error: not logged in')).toThrow(/did not print JSON/);
    expect(() => parseListing('{"sessions": []}')).toThrow(/not .*array/);
  });

  it('cuts long fields and odd types instead of failing', () => {
    const s = parseEntry({ sessionId: 'x', name: 'n'.repeat(5000), cwd: 42, startedAt: 'yesterday', status: '' })!;
    expect(s.name.length).toBe(500);
    expect(s.cwd).toBe('');
    expect(s.startedAt).toBeUndefined();
    expect(s.status).toBeUndefined();
  });

  it('a job file that is not JSON adds nothing', () => {
    expect(parseJobState('{"state":')).toBeUndefined();
    expect(parseJobState('[1]')).toBeUndefined();
  });

  it('a blocked session whose detail is no limit needs a person (a login, an error)', () => {
    const s = parseEntry({ sessionId: 'x', id: 'x', kind: 'background', status: 'idle', state: 'blocked', pid: 1 })!;
    const v = claudeView({ ...s, needs: 'login required — run /login · API Error: 403 status code (no body)' }, NOW);
    expect(v).toMatchObject({ phase: 'needs_you', need: { reason: 'input' } });
    expect(needLine(v.need!)).toBe('input: login required — run /login · API Error: 403 status code (no body)');
  });

  it('an open request autodeck\'s hook holds wins over the listing, and names the request to answer', () => {
    const s = parseEntry({ sessionId: 'x', id: 'x', kind: 'background', status: 'waiting', waitingFor: 'permission prompt', pid: 1 })!;
    expect(claudeView(s, NOW, { id: 9, kind: 'permission', text: 'Bash: rm -rf build' }).need).toEqual({ reason: 'permission', text: 'Bash: rm -rf build', requestId: 9 });
  });
});

describe('what goes into the event log', () => {
  const s = parseEntry({ sessionId: 'abcd-1', id: 'abcd', kind: 'background', name: 'fix it', cwd: '/p', pid: 3, status: 'waiting', waitingFor: 'permission prompt' })!;
  const at = '2026-11-27T20:30:00.000Z';

  it('needing a person: a needs_you event filed under the session', () => {
    const view = claudeView({ ...s, needs: 'approve Bash: make' }, NOW);
    const e = transitionEvent({ session: s, view }, undefined, at)!;
    expect(e).toMatchObject({ kind: 'needs_you', session: 'abcd', taskDir: 'claude:abcd-1', taskName: 'fix it', detail: { reason: 'permission', text: 'approve Bash: make' } });
  });

  it('an end seen happen is an ended event; one that ended before anyone looked is not', () => {
    const ended = parseEntry({ sessionId: 'abcd-1', id: 'abcd', kind: 'background', name: 'fix it', state: 'stopped' })!;
    const view = claudeView(ended, NOW);
    expect(phaseKey(view)).toBe('stopped');
    expect(transitionEvent({ session: ended, view }, 'working', at)).toMatchObject({ kind: 'ended', detail: { outcome: 'stopped' } });
    expect(transitionEvent({ session: ended, view }, undefined, at)).toBeUndefined();
    expect(transitionEvent({ session: ended, view }, phaseKey(view), at)).toBeUndefined();
  });

  it('working and idle make no event', () => {
    const busy = parseEntry({ sessionId: 'abcd-1', id: 'abcd', kind: 'background', pid: 3, status: 'busy' })!;
    expect(transitionEvent({ session: busy, view: claudeView(busy, NOW) }, 'idle', at)).toBeUndefined();
  });
});
