import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BELL, NOTIFYING_KINDS, NOTIFY_WINDOW_MS, Notifier, admit, cleanText, notificationFor, osc9, runUserTmux,
  tmuxDisplayArgv, tmuxPassthrough, type NotifierOptions,
} from '../../src/notify/index.js';
import { RESTART_LIMIT_MESSAGE } from '../../src/supervisor/limits.js';
import { EVENT_KINDS, type EventKind, type LoopEvent } from '../../src/store/events.js';

const TASK_DIR = '/p/AiTasks/fix-auth';

function ev(kind: EventKind, detail: Record<string, unknown> = {}, over: Partial<LoopEvent> = {}): LoopEvent {
  return { at: '2025-01-01T00:00:00.000Z', session: 'auto-fix-auth-abc123', taskDir: TASK_DIR, taskName: 'fix-auth', kind, detail, ...over };
}

/** Any control character: C0, DEL, C1. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('notificationFor: which events notify, and what they say', () => {
  // [event kind, detail, topic, text] — text undefined: no notification.
  const cases: [EventKind, Record<string, unknown>, string | undefined, string | undefined][] = [
    ['ended', { outcome: 'complete', forced: false, iterations: 6, activeMs: 1000 }, 'end', 'autodeck: fix-auth complete after 6 iterations'],
    ['ended', { outcome: 'blocked', forced: false, iterations: 1 }, 'end', 'autodeck: fix-auth blocked after 1 iteration'],
    ['ended', { outcome: 'timeout', forced: true, iterations: 3 }, 'end', 'autodeck: fix-auth timed out after 3 iterations (forced)'],
    ['ended', { outcome: 'max_iterations', iterations: 20 }, 'end', 'autodeck: fix-auth reached the iteration limit after 20 iterations'],
    ['ended', { outcome: 'merge_conflict', iterations: 4 }, 'end', 'autodeck: fix-auth hit a merge conflict after 4 iterations'],
    ['ended', { outcome: 'stall_limit', iterations: 2 }, 'end', 'autodeck: fix-auth stopped for stalling too often after 2 iterations'],
    ['ended', { outcome: 'user_stop', iterations: 2 }, 'end', 'autodeck: fix-auth stopped on request after 2 iterations'],
    ['ended', { outcome: 'killed', iterations: 0 }, 'end', 'autodeck: fix-auth killed after 0 iterations'],
    ['ended', { outcome: 'something_new' }, 'end', 'autodeck: fix-auth ended (something_new)'],
    // The `failed` event right before it has already said so.
    ['ended', { outcome: 'failed', iterations: 2 }, undefined, undefined],
    ['failed', { message: RESTART_LIMIT_MESSAGE, restarts: 3 }, 'end', `autodeck: fix-auth failed: ${RESTART_LIMIT_MESSAGE}`],
    ['stall', { kind: 'idle', stepTimeout: false }, 'stall', 'autodeck: fix-auth stalled (idle at its prompt); autodeck is nudging it'],
    ['stall', { kind: 'permission_prompt', stepTimeout: true }, 'stall', 'autodeck: fix-auth stalled (permission prompt, step timeout); autodeck is answering it'],
    ['stall', { kind: 'idle', limit: true, recoveryStep: 4, recoveryTotal: 4 }, 'stall', 'autodeck: fix-auth stalled too often (idle at its prompt); stopping it'],
    ['stall', { kind: 'reasoning_loop', transcript: '/t.jsonl' }, 'stall', 'autodeck: fix-auth is repeating itself (reasoning loop); stopping it'],
    // an unknown command: the failed event after it names the command and the fix
    ['stall', { kind: 'unknown_command', source: 'screen', command: '/ai-cli-task' }, undefined, undefined],
    ['stall', { kind: 'hung', sign: 'api-error', source: 'screen', rung: 'interrupt' }, 'stall', 'autodeck: fix-auth seems hung (api error); autodeck steps in: Esc'],
    ['stall', { kind: 'hung', sign: 'transcript', source: 'transcript', rung: 'restart' }, 'stall', 'autodeck: fix-auth seems hung (transcript); autodeck steps in: a restart'],
    ['stall_unrecognized', { kind: 'question' }, 'input', 'autodeck: fix-auth needs input: a question autodeck cannot answer'],
    ['stall_unrecognized', { kind: 'unknown', stepTimeout: false }, 'input', 'autodeck: fix-auth needs input: its screen shows something autodeck cannot answer'],
    ['stall_unrecognized', { kind: 'yes_no_prompt' }, 'input', 'autodeck: fix-auth needs input: a yes/no prompt autodeck cannot answer'],
    ['stall_unrecognized', { kind: 'busy', stepTimeout: true }, 'input', 'autodeck: fix-auth looks stuck (busy, screen frozen); needs a look'],
    ['stall_unrecognized', { kind: 'compacting' }, 'input', 'autodeck: fix-auth has been compacting for over 30 minutes; needs a look'],
    ['quota_wait', { message: 'limit', resetAt: null, nextProbeAt: '2025-01-01T00:15:00.000Z' }, 'quota', 'autodeck: fix-auth hit a usage limit; waiting'],
    ['quota_wait', { probe: true, nextProbeAt: '2025-01-01T00:30:00.000Z' }, undefined, undefined],
    ['quota_resume', { why: 'signal', waitedMs: 5 }, undefined, undefined],
    ['recovery', { kind: 'idle', keys: 'x' }, undefined, undefined],
    ['signal', { step: 'exec', iteration: 2 }, undefined, undefined],
    ['started', {}, undefined, undefined],
    ['agent_exit', { exitCode: 1 }, undefined, undefined],
    ['restart', { attempt: 1 }, undefined, undefined],
    ['stop_requested', { reason: 'user_stop' }, undefined, undefined],
    ['hook_allow', { rule: 'done' }, undefined, undefined],
    ['error', { where: 'spawn' }, undefined, undefined],
  ];

  it.each(cases)('%s %j', (kind, detail, topic, text) => {
    const n = notificationFor(ev(kind, detail));
    if (text === undefined) expect(n).toBeUndefined();
    else expect(n).toEqual({ loop: TASK_DIR, topic, text });
  });

  it('says until when a quota wait lasts, in local time', () => {
    const resetAt = new Date(2025, 0, 1, 13, 5).toISOString();
    expect(notificationFor(ev('quota_wait', { message: 'limit', resetAt }))?.text).toBe('autodeck: fix-auth hit a usage limit; waiting until 13:05');
  });

  it('never notifies for the kinds outside NOTIFYING_KINDS', () => {
    const details = [{}, { kind: 'unknown' }, { outcome: 'complete', iterations: 1 }, { message: 'x' }];
    for (const kind of EVENT_KINDS.filter((k) => !NOTIFYING_KINDS.includes(k))) {
      for (const d of details) expect(notificationFor(ev(kind, d))).toBeUndefined();
    }
  });

  it('names the loop by its folder when the event has no task name', () => {
    const n = notificationFor(ev('ended', { outcome: 'complete', iterations: 2 }, { taskName: undefined, taskDir: '/x/AiTasks/db-migrate/' }));
    expect(n?.text).toBe('autodeck: db-migrate complete after 2 iterations');
    expect(n?.loop).toBe('/x/AiTasks/db-migrate/');
  });
});

describe('admit: the rate limit', () => {
  const stall = { loop: 'A', topic: 'stall' } as const;

  it('lets the same loop and topic through once per window', () => {
    let sent = admit(new Map(), stall, 1_000);
    expect(sent.send).toBe(true);
    expect(admit(sent.sent, stall, 1_000).send).toBe(false);
    expect(admit(sent.sent, stall, 1_000 + NOTIFY_WINDOW_MS - 1).send).toBe(false);
    sent = admit(sent.sent, stall, 1_000 + NOTIFY_WINDOW_MS);
    expect(sent.send).toBe(true);
  });

  it('counts loops and topics apart', () => {
    const { sent } = admit(new Map(), stall, 0);
    expect(admit(sent, { loop: 'B', topic: 'stall' }, 1).send).toBe(true);
    expect(admit(sent, { loop: 'A', topic: 'input' }, 1).send).toBe(true);
  });

  it('does not restart the window on a suppressed one, and forgets old entries', () => {
    let s = admit(new Map(), stall, 0).sent;
    const r = admit(s, stall, 20_000);
    expect(r.send).toBe(false);
    expect(r.sent).toBe(s);
    expect(admit(s, stall, 30_000).send).toBe(true);
    s = admit(s, { loop: 'B', topic: 'end' }, 100_000).sent;
    expect([...s.keys()]).toHaveLength(1);
  });

  it('takes a custom window, and a clock that went backwards as a new start', () => {
    const { sent } = admit(new Map(), stall, 10_000, 5_000);
    expect(admit(sent, stall, 14_999, 5_000).send).toBe(false);
    expect(admit(sent, stall, 15_000, 5_000).send).toBe(true);
    expect(admit(sent, stall, 9_000, 5_000).send).toBe(true);
  });

  it('does not change the record it was given', () => {
    const before = new Map([['x', 1]]);
    admit(before, stall, 2);
    expect([...before]).toEqual([['x', 1]]);
  });
});

describe('cleanText and OSC 9: agent-controlled text cannot break out', () => {
  const evil = 'fix\x1b]9;pwned\x07\x1b[31mred\x1b[0m\x07bel\x1b\\st\x9b2Jc1\x9d0;title\x9cx\x85nel\nline\r\n\ttab\x00nul\x7fdel\u2028ls\u202eltr\x1bP1$r\x1b\\end\x1b';

  it('removes every escape sequence whole, and every other control character as a space', () => {
    const clean = cleanText(evil);
    expect(clean).not.toMatch(CONTROL);
    expect(clean).not.toMatch(/[\u2028\u2029\u202a-\u202e]/);
    // `pwned`, `title` and `1$r` were inside sequences; sequences take no room on a screen.
    expect(clean).toBe('fixred belstc1x nel line tab nul del ls ltrend');
  });

  it('an unterminated sequence loses its introducer, not the rest of the text', () => {
    expect(cleanText('a\x1b]0;title and more')).toBe('a0;title and more');
  });

  it('caps the length by characters, never splitting one', () => {
    expect(cleanText('x'.repeat(500))).toHaveLength(200);
    expect(cleanText('x'.repeat(500)).endsWith('…')).toBe(true);
    const emoji = cleanText('😀'.repeat(300), 10);
    expect(Array.from(emoji)).toHaveLength(10);
    expect(emoji).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(cleanText('short', 10)).toBe('short');
  });

  it('gives one OSC 9 with exactly one ESC at its start and one BEL at its end', () => {
    const n = notificationFor(ev('stall_unrecognized', { kind: 'unknown' }, { taskName: evil }))!;
    const seq = osc9(n.text, false);
    expect(seq.startsWith('\x1b]9;autodeck: fixred bel')).toBe(true);
    expect(seq.endsWith('\x07')).toBe(true);
    const body = seq.slice('\x1b]9;'.length, -1);
    expect(body).not.toMatch(CONTROL);
    expect(seq.split('\x1b')).toHaveLength(2);
    expect(seq.split('\x07')).toHaveLength(2);
  });

  it('wraps it in tmux passthrough inside tmux, every ESC doubled', () => {
    expect(tmuxPassthrough('\x1b]9;hi\x07')).toBe('\x1bPtmux;\x1b\x1b]9;hi\x07\x1b\\');
    expect(osc9('hi', true)).toBe('\x1bPtmux;\x1b\x1b]9;hi\x07\x1b\\');
    expect(osc9('hi', false)).toBe('\x1b]9;hi\x07');
    const wrapped = osc9(evil, true);
    const inner = wrapped.slice('\x1bPtmux;'.length, -2);
    // Inside: only the doubled ESC of the OSC itself; the passthrough's ST is the only single ESC.
    expect(inner).toMatch(/^\x1b\x1b\]9;[^\x00-\x1f\x7f-\x9f]*\x07$/);
  });
});

describe('tmuxDisplayArgv', () => {
  it('is an argv for the user tmux: no socket option, no shell, options ended', () => {
    expect(tmuxDisplayArgv('autodeck: a done')).toEqual(['tmux', 'display-message', '--', 'autodeck: a done']);
  });

  it('keeps tmux formats and command separators literal, and cleans controls', () => {
    expect(tmuxDisplayArgv('x #(rm -rf ~) #{pane_id}\x1b[31m;')).toEqual(['tmux', 'display-message', '--', 'x ##(rm -rf ~) ##{pane_id}\\;']);
    expect(tmuxDisplayArgv('a\nb')[3]).toBe('a b');
  });
});

describe('Notifier', () => {
  const stall = ev('stall', { kind: 'idle' });
  const ended = ev('ended', { outcome: 'complete', iterations: 6 });

  function make(channels: NotifierOptions['channels'], env: NodeJS.ProcessEnv = {}) {
    const writes: string[] = [];
    const tmux: (readonly string[])[] = [];
    const clock = { t: 1_000_000 };
    const notifier = new Notifier({
      channels, env, now: () => clock.t, write: (b) => writes.push(b), runTmux: (argv) => tmux.push(argv),
    });
    return { notifier, writes, tmux, clock };
  }

  it('off: writes nothing and runs nothing', () => {
    const { notifier, writes, tmux } = make([], { TMUX: '/tmp/tmux-1/default,1,0' });
    expect(notifier.enabled).toBe(false);
    expect(notifier.handle(ended)).toBeUndefined();
    expect(writes).toEqual([]);
    expect(tmux).toEqual([]);
  });

  it('bell only: writes exactly BEL', () => {
    const { notifier, writes, tmux } = make(['bell'], { TMUX: '/tmp/tmux-1/default,1,0' });
    expect(notifier.handle(ended)?.text).toBe('autodeck: fix-auth complete after 6 iterations');
    expect(writes).toEqual([BELL]);
    expect(writes[0]).toBe('\x07');
    expect(tmux).toEqual([]);
  });

  it('osc9: a plain OSC 9 outside tmux, passthrough inside', () => {
    const out = make(['osc9']);
    out.notifier.handle(ended);
    expect(out.writes).toEqual(['\x1b]9;autodeck: fix-auth complete after 6 iterations\x07']);
    const inside = make(['osc9'], { TMUX: '/tmp/tmux-1/default,1,0' });
    inside.notifier.handle(ended);
    expect(inside.writes).toEqual(['\x1bPtmux;\x1b\x1b]9;autodeck: fix-auth complete after 6 iterations\x07\x1b\\']);
    expect(inside.tmux).toEqual([]);
  });

  it('bell and osc9 together: one write, in the order given', () => {
    const { notifier, writes } = make(['osc9', 'bell', 'bell']);
    notifier.handle(ended);
    expect(writes).toEqual(['\x1b]9;autodeck: fix-auth complete after 6 iterations\x07\x07']);
  });

  it('tmux: runs an argv (not a shell string) only when $TMUX is set', () => {
    const outside = make(['tmux']);
    expect(outside.notifier.handle(ended)).toBeDefined();
    expect(outside.tmux).toEqual([]);
    expect(outside.writes).toEqual([]);
    const inside = make(['tmux'], { TMUX: '/tmp/tmux-1/default,1,0' });
    inside.notifier.handle(ev('ended', { outcome: 'complete', iterations: 1 }, { taskName: 'a;b $(x) #(y)\x07' }));
    expect(inside.tmux).toEqual([['tmux', 'display-message', '--', 'autodeck: a;b $(x) ##(y) complete after 1 iteration']]);
    expect(inside.tmux[0]!.every((w) => typeof w === 'string')).toBe(true);
    expect(inside.tmux[0]!.some((w) => w.includes('-L') || w.includes('-S'))).toBe(false);
    expect(inside.writes).toEqual([]);
  });

  it('an empty $TMUX counts as not in tmux', () => {
    const { notifier, tmux, writes } = make(['tmux', 'osc9'], { TMUX: '' });
    notifier.handle(ended);
    expect(tmux).toEqual([]);
    expect(writes).toEqual(['\x1b]9;autodeck: fix-auth complete after 6 iterations\x07']);
  });

  it('ignores events that do not notify', () => {
    const { notifier, writes } = make(['bell']);
    for (const kind of ['signal', 'started', 'recovery', 'quota_resume'] as const) expect(notifier.handle(ev(kind))).toBeUndefined();
    expect(writes).toEqual([]);
  });

  it('rate-limits the same loop and topic with its clock', () => {
    const { notifier, writes, clock } = make(['bell']);
    expect(notifier.handle(stall)).toBeDefined();
    clock.t += 10_000;
    expect(notifier.handle(stall)).toBeUndefined();
    expect(notifier.handle(ev('stall', { kind: 'idle' }, { taskDir: '/p/AiTasks/other', taskName: 'other' }))).toBeDefined();
    expect(notifier.handle(ev('stall_unrecognized', { kind: 'unknown' }))).toBeDefined();
    clock.t += 20_000;
    expect(notifier.handle(stall)).toBeDefined();
    expect(writes).toHaveLength(4);
  });

  it('a failed loop notifies once: failed, then its ended', () => {
    const { notifier, writes } = make(['bell']);
    expect(notifier.handle(ev('failed', { message: RESTART_LIMIT_MESSAGE }))).toBeDefined();
    expect(notifier.handle(ev('ended', { outcome: 'failed', iterations: 1 }))).toBeUndefined();
    expect(writes).toEqual([BELL]);
  });

  it('takes its window from the options', () => {
    const writes: string[] = [];
    let t = 0;
    const n = new Notifier({ channels: ['bell'], env: {}, now: () => t, write: (b) => writes.push(b), windowMs: 1_000 });
    n.handle(stall);
    t = 999;
    n.handle(stall);
    t = 1_000;
    n.handle(stall);
    expect(writes).toHaveLength(2);
  });

  it('says nothing about a loop a person is attached to, and does again once they leave', () => {
    const writes: string[] = [];
    let attached = true;
    const n = new Notifier({ channels: ['bell'], env: {}, now: () => 0, write: (b) => writes.push(b), attached: (dir) => attached && dir === TASK_DIR });
    expect(n.handle(ended)).toBeUndefined();
    expect(n.handle(ev('ended', { outcome: 'complete' }, { taskDir: '/p/AiTasks/other' }))?.topic).toBe('end');
    attached = false;
    expect(n.handle(ended)?.topic).toBe('end');
    expect(writes).toEqual([BELL, BELL]);
  });

  it('never throws when writing or tmux fails', () => {
    const n = new Notifier({
      channels: ['bell', 'tmux'], env: { TMUX: 'x' }, now: () => 0,
      write: () => { throw new Error('EPIPE'); }, runTmux: () => { throw new Error('ENOENT'); },
    });
    expect(n.handle(ended)?.topic).toBe('end');
  });
});

describe('runUserTmux', () => {
  const dir = mkdtempSync(join(tmpdir(), 'autodeck-notify-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('swallows a missing program', () => {
    expect(() => runUserTmux([join(dir, 'no-such-tmux'), 'display-message', '--', 'x'])).not.toThrow();
    expect(() => runUserTmux([])).not.toThrow();
  });

  it('passes each word as is, no shell in between', async () => {
    const out = join(dir, 'argv.json');
    const marker = join(dir, 'injected');
    const script = `require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.argv.slice(1)))`;
    const word = `$(touch ${marker}); touch ${marker} \`touch ${marker}\``;
    runUserTmux([process.execPath, '-e', script, word]);
    for (let i = 0; i < 200 && !existsSync(out); i++) await new Promise((r) => setTimeout(r, 25));
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual([word]);
    expect(existsSync(marker)).toBe(false);
  });
});
