import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { MAX_EVENT_BYTES, parseEvent, readEventInput } from '../../src/hooks/input.js';
import { stateOfEvent } from '../../src/hooks/state.js';
import { SENTINEL, sentinelSeen } from '../../src/hooks/sentinel.js';
import { commandHooks, readStopHookResult, registeredCommands, stopEvent } from '../../src/hooks/claudeHooks.js';
import type { TranscriptEntry } from '../../src/agents/transcript.js';

describe('readEventInput', () => {
  it('reads to the end of input', async () => {
    const s = new PassThrough();
    const p = readEventInput(s);
    s.write('{"a":');
    s.end('1}');
    expect(await p).toEqual({ text: '{"a":1}', oversized: false, timedOut: false });
  });

  it('stops as soon as a whole object has arrived, even if the writer keeps the stream open', async () => {
    const s = new PassThrough();
    const started = Date.now();
    const p = readEventInput(s, 5000);
    s.write('{"hook_event_name": "Stop"}\n');
    const r = await p;
    expect(parseEvent(r)).toEqual({ ok: true, event: { hook_event_name: 'Stop' } });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('gives up after the timeout when nothing comes', async () => {
    const s = new PassThrough();
    const r = await readEventInput(s, 50);
    expect(r).toEqual({ text: '', oversized: false, timedOut: true });
    expect(parseEvent(r)).toEqual({ ok: false, reason: 'no event on stdin (timed out)' });
  });

  it('reads no more than the limit', async () => {
    const s = new PassThrough();
    const p = readEventInput(s, 2000, 1000);
    s.write('x'.repeat(600));
    s.write('x'.repeat(600));
    const r = await p;
    expect(r.oversized).toBe(true);
    expect(parseEvent(r)).toEqual({ ok: false, reason: `the event on stdin is larger than ${MAX_EVENT_BYTES} bytes` });
  });

  it('does not read a terminal', async () => {
    const s = Object.assign(new PassThrough(), { isTTY: true });
    expect(await readEventInput(s, 5000)).toEqual({ text: '', oversized: false, timedOut: false });
  });

  it.each([
    ['empty', '', 'no event on stdin'],
    ['garbage', 'not json at all', 'the event on stdin is not JSON'],
    ['an array', '[1]', 'the event on stdin is not a JSON object'],
  ])('%s input is refused with a reason', (_, text, reason) => {
    expect(parseEvent({ text, oversized: false, timedOut: false })).toEqual({ ok: false, reason });
  });
});

describe('stateOfEvent', () => {
  it.each([
    [{ hook_event_name: 'UserPromptSubmit', prompt: 'hi' }, 'busy'],
    [{ hook_event_name: 'PreToolUse', tool_name: 'Bash' }, 'busy'],
    [{ hook_event_name: 'Notification', notification_type: 'permission_prompt', message: 'Claude needs your permission to use Bash' }, 'waiting'],
    [{ hook_event_name: 'Notification', notification_type: 'elicitation_dialog', message: 'Claude Code needs your input' }, 'waiting'],
    [{ hook_event_name: 'Notification', notification_type: 'idle_prompt', message: 'Claude is waiting for your input' }, 'idle'],
    // the types added in 2.1.198 (from its changelog; 2.1.332 sent permission_prompt and idle_prompt in the runs here)
    [{ hook_event_name: 'Notification', notification_type: 'agent_needs_input', message: 'Claude needs your input' }, 'waiting'],
    [{ hook_event_name: 'Notification', notification_type: 'agent_completed', message: 'Claude finished' }, 'idle'],
    [{ hook_event_name: 'Notification', message: 'Claude needs your permission to use Bash' }, 'waiting'],
    [{ hook_event_name: 'Notification', message: 'Claude is waiting for your input' }, 'idle'],
    [{ hook_event_name: 'Notification', notification_type: 'auth_success', message: 'ok' }, undefined],
    [{ hook_event_name: 'PreCompact', trigger: 'auto' }, 'compacting'],
    [{ hook_event_name: 'SessionStart', source: 'compact' }, 'compacted'],
    [{ hook_event_name: 'SessionStart', source: 'startup' }, undefined],
    [{ hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' }, 'exited'],
    [{ hook_event_name: 'PostToolUse' }, 'busy'],
    [{ hook_event_name: 'PostToolUseFailure', error: 'exit 1' }, 'busy'],
    [{ hook_event_name: 'PermissionRequest', tool_name: 'Write' }, 'waiting'],
    [{ hook_event_name: 'Elicitation' }, 'waiting'],
    [{ hook_event_name: 'PostCompact', trigger: 'auto' }, 'compacted'],
    [{ hook_event_name: 'Stop', stop_hook_active: false }, 'idle'],
    [{ hook_event_name: 'StopFailure', error: 'rate_limit' }, 'idle'],
    [{ hook_event_name: 'SubagentStop' }, undefined],
    [{}, undefined],
  ])('%j is %s', (event, state) => {
    expect(stateOfEvent(event)?.state).toBe(state);
  });

  it('keeps a few fields as detail', () => {
    expect(stateOfEvent({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf /' }, session_id: 's' }))
      .toEqual({ state: 'busy', detail: { tool_name: 'Bash' } });
  });
});

describe('sentinelSeen', () => {
  const assistant = (text: string, id = Math.random().toString()): TranscriptEntry =>
    ({ type: 'assistant', message: { id, role: 'assistant', content: [{ type: 'text', text }] } });
  const user = (text: string): TranscriptEntry => ({ type: 'user', message: { role: 'user', content: text } });

  it('sees it in an assistant text of the last 20 entries', () => {
    expect(sentinelSeen([assistant(`All done.\n${SENTINEL}`)])).toBe(true);
    expect(sentinelSeen([assistant(SENTINEL), ...Array.from({ length: 19 }, () => user('x'))])).toBe(true);
    expect(sentinelSeen([assistant(SENTINEL), ...Array.from({ length: 20 }, () => user('x'))])).toBe(false);
  });

  it('not in the hook prompt quoted back as a user message, a tool input, or an API error', () => {
    expect(sentinelSeen([user(`Stop hook feedback:\n... end your reply with ${SENTINEL} (only then).`)])).toBe(false);
    expect(sentinelSeen([{ type: 'assistant', message: { id: 'm', content: [{ type: 'tool_use', input: { text: SENTINEL } }] } }])).toBe(false);
    expect(sentinelSeen([{ ...assistant(SENTINEL), isApiErrorMessage: true }])).toBe(false);
  });

  it('sees it in last_assistant_message when the transcript lags', () => {
    expect(sentinelSeen([], `done ${SENTINEL}`)).toBe(true);
    expect(sentinelSeen([], 'not yet')).toBe(false);
    expect(sentinelSeen([], 42)).toBe(false);
  });
});

describe("Claude Code's side", () => {
  it('the Stop event carries the fields the hook reads', () => {
    expect(stopEvent({ sessionId: 's', transcriptPath: '/t.jsonl', cwd: '/p', stopHookActive: false })).toMatchObject({
      session_id: 's', transcript_path: '/t.jsonl', cwd: '/p', hook_event_name: 'Stop', stop_hook_active: false,
    });
  });
  it.each([
    [0, '{"decision":"block","reason":"go on"}', '', { block: true, reason: 'go on' }],
    [0, '', '', { block: false }],
    [0, 'not json', '', { block: false }],
    [2, '', 'stderr reason\n', { block: true, reason: 'stderr reason' }],
    [1, '{"decision":"block","reason":"ignored"}', 'oops', { block: false }],
  ])('exit %i, stdout %j: %j', (code, out, err, want) => {
    expect(readStopHookResult(code, out, err)).toEqual(want);
  });
  it('lists the registered commands, skipping odd shapes', () => {
    const settings = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'a' }, { type: 'prompt', prompt: 'p' }, 'x'] }, { matcher: '', hooks: [{ type: 'command', command: 'b' }] }, 7] } };
    expect(registeredCommands(settings, 'Stop')).toEqual(['a', 'b']);
    expect(registeredCommands(settings, 'PreToolUse')).toEqual([]);
    expect(commandHooks('nope')).toEqual([]);
  });
});
