import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseJobState, parseListing, withJobState } from '../../src/claudeSessions/listing.js';
import { claudeView, needLine } from '../../src/claudeSessions/view.js';
import { requestDetail } from '../../src/claudeSessions/permissionHook.js';
import { bent, hostileJsonText, hostileValue, quick, runs, safeStringify } from '../helpers/hostile.js';

// Property-based: what Claude Code writes about its own sessions (`claude agents --json`, a
// job's state.json) and what its PermissionRequest hook is handed. For any content: no throw
// but parseListing's one-line reason, fields cut to their caps, a view that can be shown and
// stored, within a generous time bound.

const entry = { pid: 10, id: 'ab12cd34', sessionId: 'ab12cd34-0000-4000-8000-000000000001', cwd: '/work/app', kind: 'background', name: 'task', status: 'waiting', waitingFor: 'permission prompt', state: 'blocked', startedAt: 1795811025558 };
const ENTRY_FIELDS = Object.keys(entry);
const listingText = fc.oneof(
  hostileJsonText(),
  hostileJsonText(fc.array(fc.oneof(bent(entry, ENTRY_FIELDS), hostileValue), { maxLength: 6 })),
  fc.array(bent(entry, ENTRY_FIELDS), { minLength: 1, maxLength: 4 }).map(safeStringify),
);
const NOW = Date.parse('2026-11-27T23:00:00Z');

describe('claude agents --json', () => {
  it('parseListing: sessions with capped fields, or a one-line reason; every session can be viewed and stored', () => {
    fc.assert(fc.property(listingText, fc.option(hostileJsonText(), { nil: undefined }), (text, job) => {
      let listing: ReturnType<typeof parseListing>;
      try {
        listing = quick(() => parseListing(text));
      } catch (err) {
        expect(err).toBeInstanceOf(Error);
        expect((err as Error).message).not.toContain('\n');
        expect((err as Error).message.length).toBeLessThan(300);
        return;
      }
      for (const s of listing.sessions) {
        for (const v of [s.key, s.sessionId, s.id, s.kind, s.name, s.cwd, s.status ?? '', s.waitingFor ?? '', s.state ?? '']) expect(v.length).toBeLessThanOrEqual(510);
        expect(Object.keys(s.extra).length).toBeLessThanOrEqual(20);
        for (const v of Object.values(s.extra)) expect(typeof v === 'string' && v.length <= 200).toBe(true);
        const withJob = withJobState(s, job === undefined ? undefined : parseJobState(job));
        const view = quick(() => claudeView(withJob, NOW));
        if (view.need) expect(typeof quick(() => needLine(view.need!))).toBe('string');
        expect(() => JSON.stringify({ s: withJob, view })).not.toThrow();
      }
    }), { numRuns: runs(200) });
  });

  it('an unknown field nested thousands deep is shown cut, and the listing still reads', () => {
    const deepText = `[${JSON.stringify({ ...entry, future: 'x' }).replace('"x"', `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`)}]`;
    const [s] = parseListing(deepText).sessions;
    expect(s!.extra.future!.length).toBeLessThanOrEqual(200);
    expect(s!.status).toBe('waiting');
  });

  it('parseJobState: an object of short strings, or nothing', () => {
    fc.assert(fc.property(fc.oneof(hostileJsonText(), hostileJsonText(bent({ state: 'blocked', detail: 'limit', needs: 'x', updatedAt: '2026-11-27T23:00:00Z' }, ['state', 'detail', 'needs', 'updatedAt']))), (text) => {
      const job = quick(() => parseJobState(text));
      if (!job) return;
      for (const v of [job.state, job.detail, job.needs]) if (v !== undefined) expect(typeof v === 'string' && v.length <= 500).toBe(true);
      if (job.updatedAt !== undefined) expect(Number.isFinite(job.updatedAt)).toBe(true);
    }), { numRuns: runs(150) });
  });
});

describe('the PermissionRequest hook\'s event', () => {
  const event = { hook_event_name: 'PermissionRequest', session_id: 's', tool_name: 'Bash', tool_input: { command: 'echo hi', description: 'say hi' } };
  const question = { hook_event_name: 'PermissionRequest', session_id: 's', tool_name: 'AskUserQuestion', tool_input: { questions: [{ question: 'Which?', options: [{ label: 'A' }] }] } };
  it('requestDetail: what is kept can be stored as JSON, a few kilobytes at most', () => {
    fc.assert(fc.property(fc.oneof(bent(event, ['tool_name', 'tool_input']), bent(question, ['tool_input']), bent({ ...question, tool_input: {} }, ['tool_input'])), (e) => {
      const r = quick(() => requestDetail(e));
      if (!r) return;
      const stored = quick(() => JSON.stringify(r.detail));
      expect(stored.length).toBeLessThan(64_000);
    }), { numRuns: runs(200) });
  });

  it('a question nested thousands deep is kept bounded, not stored whole', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const r = requestDetail({ tool_name: 'AskUserQuestion', tool_input: { questions: [{ question: 'Which?', options: deep }] } });
    expect(() => JSON.stringify(r!.detail)).not.toThrow();
  });
});
