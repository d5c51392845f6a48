import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExternalNotifier } from '../../src/notify/external.js';
import { postNotification, redactUrl, requestFor, runNotifyCommand } from '../../src/notify/deliver.js';
import { payloadFor, envFor, promptFacts, type NotifyPayload } from '../../src/notify/payload.js';
import { notificationFor } from '../../src/notify/decide.js';
import { splitAgentCommand } from '../../src/agents/command.js';
import type { LoopEvent } from '../../src/store/events.js';
import { waitFor } from '../helpers/wait.js';
import { makeWorkspace } from '../helpers/workspace.js';
import { runCli, runFlags } from '../helpers/cli.js';

// notifyUrl against a real local HTTP listener, notifyCommand as a real child process.

interface Seen { method: string; url: string; headers: IncomingMessage['headers']; body: string }
let server: Server;
let base: string;
const seen: Seen[] = [];
/** How the listener answers the next requests, in order (then 200). */
let script: Array<(res: ServerResponse) => void> = [];
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'autodeck-notify-'));
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const next = script.shift();
      if (next) next(res);
      else res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

// Each test starts with a listener that answers 200 and has seen nothing.
beforeEach(() => {
  script = [];
  seen.length = 0;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const ended: LoopEvent = {
  id: 7, at: '2026-11-23T10:00:00.000Z', session: 'auto-fix-auth-1a2b3c', taskDir: '/p/AiTasks/fix-auth', taskName: 'fix-auth',
  kind: 'ended', detail: { outcome: 'complete', forced: false, iterations: 6, activeMs: 1000 },
};
const payloadOf = (e: LoopEvent, screen?: string[]): NotifyPayload => payloadFor(e, notificationFor(e)!, { host: 'box', iteration: 3, ...(screen ? { screen } : {}) });
const quick = { attempts: 3, backoffMs: 1, timeoutMs: 2000 };

describe('notifyUrl', () => {
  it('POSTs the payload as JSON', async () => {
    seen.length = 0;
    const r = await postNotification(`${base}/hook`, payloadOf(ended), quick);
    expect(r).toMatchObject({ ok: true, attempts: 1 });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]!.body)).toEqual({
      source: 'autodeck', module: 'fix-auth', taskDir: '/p/AiTasks/fix-auth', session: 'auto-fix-auth-1a2b3c', host: 'box',
      reason: 'done', text: 'autodeck: fix-auth complete after 6 iterations', event: 'ended', at: '2026-11-23T10:00:00.000Z',
      iteration: 6, outcome: 'complete',
    });
  });

  it('retries a 5xx and a 429 with backoff, and stops at a 4xx', async () => {
    seen.length = 0;
    script = [(res) => { res.statusCode = 503; res.end(); }, (res) => { res.statusCode = 429; res.end(); }];
    const waits: number[] = [];
    const r = await postNotification(`${base}/x`, payloadOf(ended), { ...quick, backoffMs: 100, sleep: async (ms) => { waits.push(ms); } });
    expect(r).toMatchObject({ ok: true, attempts: 3 });
    expect(seen).toHaveLength(3);
    expect(waits).toEqual([100, 200]);
    // the same body each time
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);

    seen.length = 0;
    script = [(res) => { res.statusCode = 404; res.end(); }];
    const lost = await postNotification(`${base}/x`, payloadOf(ended), quick);
    expect(lost).toMatchObject({ ok: false, attempts: 1 });
    expect(lost.message).toMatch(/HTTP 404$/);
    expect(seen).toHaveLength(1);
  });

  it('gives up a server that does not answer, after the timeout, each try', async () => {
    seen.length = 0;
    const hang = (): void => { /* never answers */ };
    script = [hang, hang];
    const r = await postNotification(`${base}/slow`, payloadOf(ended), { attempts: 2, backoffMs: 1, timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, attempts: 2 });
    expect(r.message).toMatch(/no answer within 300 ms/);
    expect(seen).toHaveLength(2);
    server.closeAllConnections();
  });

  it('never shows a URL token or password, in a failure either', async () => {
    expect(redactUrl('https://user:s3cret@ntfy.example.com/topic?auth=tk_abc')).toBe('https://***@ntfy.example.com/topic?***');
    expect(redactUrl('not a url tk_abc')).toBe('(not a URL)');
    script = [(res) => { res.statusCode = 500; res.end(); }];
    const r = await postNotification(`${base}/x?auth=tk_secret`, payloadOf(ended), { attempts: 1 });
    expect(r.message).not.toContain('tk_secret');
    const refused = await postNotification('http://u:pw_secret@127.0.0.1:1/x?token=tk_secret', payloadOf(ended), { attempts: 1, timeoutMs: 2000 });
    expect(refused.ok).toBe(false);
    expect(refused.message).toMatch(/^could not notify http:\/\/\*\*\*@127\.0\.0\.1:1\/x\?\*\*\*: /);
    expect(refused.message).not.toMatch(/secret/);
  });

  it('sends an ntfy topic a readable text with a Title, Unicode encoded', () => {
    const e = { ...ended, taskName: 'déjà-vu', taskDir: '/p/AiTasks/déjà-vu' };
    const req = requestFor('https://ntfy.sh/my-topic', payloadOf(e));
    expect(req.body).toBe('autodeck: déjà-vu complete after 6 iterations');
    expect(req.headers['Content-Type']).toBe('text/plain; charset=utf-8');
    expect(req.headers.Title).toBe(`=?UTF-8?B?${Buffer.from('autodeck: déjà-vu done').toString('base64')}?=`);
    expect(requestFor('https://ntfy.example.org/t', payloadOf(ended)).headers.Title).toBe('autodeck: fix-auth done');
    expect(requestFor('https://hooks.example.org/t', payloadOf(ended)).headers['Content-Type']).toBe('application/json');
  });
});

describe('the payload', () => {
  it('says the reason: a permission prompt with its screen, a question, a quota until HH:MM, a failure', () => {
    const stall: LoopEvent = { ...ended, kind: 'stall_unrecognized', detail: { kind: 'permission_prompt', source: 'screen' } };
    const screen = ['', ' Bash command', '   rm -rf /tmp/x\x1b[31m', ' Do you want to proceed?', ' ❯ 1. Yes', '   2. No', ''];
    const p = payloadOf(stall, screen);
    expect(p).toMatchObject({ reason: 'permission', iteration: 3, event: 'stall_unrecognized' });
    expect(p.screen).toBe('Bash command\nrm -rf /tmp/x\nDo you want to proceed?\n❯ 1. Yes\n2. No');
    expect(p).toMatchObject({ tool: 'Bash command', command: 'rm -rf /tmp/x', question: 'Do you want to proceed?' });
    expect(payloadOf({ ...stall, detail: { kind: 'question' } }, ['Which one?']).reason).toBe('question');
    const reset = new Date(2026, 10, 23, 15, 30).toISOString();
    const quota = payloadOf({ ...ended, kind: 'quota_wait', detail: { message: 'limit', resetAt: reset, nextProbeAt: reset } });
    expect(quota).toMatchObject({ reason: 'quota', until: '15:30' });
    expect(payloadOf({ ...ended, kind: 'failed', detail: { message: 'no agent' } }).reason).toBe('failed');
    expect(payloadOf({ ...ended, detail: { outcome: 'timeout', iterations: 2 } })).toMatchObject({ reason: 'ended', outcome: 'timeout' });
    expect(payloadOf({ ...ended, detail: { outcome: 'budget', iterations: 2, tokens: 24800, costUsd: 0.03001 } })).toMatchObject({ reason: 'budget', tokens: 24800, costUsd: 0.03 });
    expect(payloadOf({ ...ended, kind: 'stall', detail: { kind: 'idle', source: 'screen' } }).screen).toBeUndefined();
  });

  it('flattens into AUTODECK_EVENT_* variables', () => {
    expect(envFor(payloadOf(ended))).toMatchObject({
      AUTODECK_EVENT_MODULE: 'fix-auth', AUTODECK_EVENT_TASK_DIR: '/p/AiTasks/fix-auth', AUTODECK_EVENT_REASON: 'done',
      AUTODECK_EVENT_HOST: 'box', AUTODECK_EVENT_ITERATION: '6', AUTODECK_EVENT_SOURCE: 'autodeck',
    });
  });
});

/** A real program that writes its stdin and chosen variables to a file. */
const recorder = (out: string): string[] => [process.execPath, '-e',
  `const fs=require('fs');let s='';process.stdin.on('data',d=>s+=d).on('end',()=>fs.writeFileSync(${JSON.stringify(out)},JSON.stringify({stdin:s,argv:process.argv.slice(1),env:Object.fromEntries(Object.entries(process.env).filter(([k])=>k.startsWith('AUTODECK_EVENT_')))})))`];

describe('what a prompt asks, from screens captured from the real Claude Code 2.1.197', () => {
  const screen = (name: string): string[] => readFileSync(new URL(`../fixtures/screens/claude/2.1.197/${name}`, import.meta.url), 'utf8').split('\n');

  it('a permission prompt: the tool, the command and the question', () => {
    expect(promptFacts('permission', screen('permission-prompt.txt'))).toEqual({ tool: 'Bash command', command: 'echo hi > x.txt', question: 'Do you want to proceed?' });
  });

  it('the question tool: the question', () => {
    expect(promptFacts('question', screen('question-tool.txt'))).toEqual({ question: 'Which database should the service use?' });
  });

  it('a screen without a menu: nothing guessed', () => {
    expect(promptFacts('permission', screen('idle.txt'))).toEqual({});
  });
});

describe('notifyCommand', () => {
  it('runs without a shell, with the event on stdin and in the environment', async () => {
    const out = join(dir, 'cmd.json');
    // `$(...)` and `;` in an argument stay literal: no shell ever sees them
    const argv = [...recorder(out), 'a $(touch pwned); b'];
    const r = await runNotifyCommand(argv, payloadOf(ended), { env: process.env });
    expect(r).toMatchObject({ ok: true });
    const got = JSON.parse(readFileSync(out, 'utf8')) as { stdin: string; argv: string[]; env: Record<string, string> };
    expect(JSON.parse(got.stdin)).toEqual(payloadOf(ended));
    expect(got.argv).toEqual(['a $(touch pwned); b']);
    expect(got.env).toMatchObject({ AUTODECK_EVENT_REASON: 'done', AUTODECK_EVENT_MODULE: 'fix-auth', AUTODECK_EVENT_ITERATION: '6' });
    expect(existsSync('pwned')).toBe(false);
  });

  it('is split like --agent from the settings string', () => {
    expect(splitAgentCommand('notify-send "autodeck event"')).toEqual(['notify-send', 'autodeck event']);
  });

  it('is killed after its timeout, and a missing program or a failure is one line', async () => {
    const slow = await runNotifyCommand([process.execPath, '-e', 'setTimeout(()=>{},60000)'], payloadOf(ended), { env: process.env, timeoutMs: 300 });
    expect(slow).toMatchObject({ ok: false, message: expect.stringMatching(/killed after 300 ms/) });
    const missing = await runNotifyCommand([join(dir, 'no-such-program')], payloadOf(ended), { env: process.env });
    expect(missing).toMatchObject({ ok: false, message: expect.stringMatching(/ENOENT/) });
    const failing = await runNotifyCommand([process.execPath, '-e', 'console.error("bad token\\nmore");process.exit(3)'], payloadOf(ended), { env: process.env });
    expect(failing.message).toMatch(/exit 3: bad token$/);
  });
});

describe('ExternalNotifier', () => {
  it('sends to both, never while a person is attached, at most once per window, without waiting', async () => {
    const out = join(dir, 'both.json');
    seen.length = 0;
    let attached = true;
    let now = 1_000_000;
    const problems: string[] = [];
    const n = new ExternalNotifier({
      command: recorder(out), url: `${base}/both`, host: 'box', now: () => now, env: process.env,
      attached: (taskDir) => attached && taskDir === ended.taskDir, onProblem: (m) => problems.push(m), post: quick,
    });
    expect(n.handle(ended)).toBeUndefined(); // attached: nothing
    await n.drain();
    expect(seen).toHaveLength(0);
    expect(existsSync(out)).toBe(false);

    attached = false;
    const sent = n.handle(ended);
    expect(sent?.reason).toBe('done');
    // handle returned before delivery: the deliveries are under way, then both arrive
    await n.drain();
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]!.body)).toEqual(sent);
    expect(JSON.parse((JSON.parse(readFileSync(out, 'utf8')) as { stdin: string }).stdin)).toEqual(sent);

    now += 1000; // same loop and topic within the window: not again
    expect(n.handle(ended)).toBeUndefined();
    // an event that notifies nobody
    expect(n.handle({ ...ended, kind: 'signal', detail: { iteration: 1 } })).toBeUndefined();
    expect(problems).toEqual([]);

    // an event read from another host: that host's, by name
    const remote = n.handle({ ...ended, taskDir: '/home/u/AiTasks/train', taskName: 'train', host: 'gpu' });
    expect(remote).toMatchObject({ host: 'gpu', module: 'train', text: 'autodeck: gpu:train complete after 6 iterations' });
    await n.drain();

    // a failed delivery is told, redacted
    const bad = new ExternalNotifier({ command: [], url: 'http://127.0.0.1:1/x?auth=tk_secret', host: 'box', now: () => now, env: process.env, onProblem: (m) => problems.push(m), post: { attempts: 1 } });
    bad.handle(ended);
    await waitFor(() => problems.length > 0, 'the failure');
    expect(problems[0]).toMatch(/^could not notify http:\/\/127\.0\.0\.1:1\/x\?\*\*\*/);
  });

  it('does nothing when neither is set', () => {
    const n = new ExternalNotifier({ command: [], url: '', host: 'box', now: () => 0, env: process.env });
    expect(n.enabled).toBe(false);
    expect(n.handle(ended)).toBeUndefined();
  });
});

describe('autodeck run with notifyUrl and notifyCommand (the built CLI, the simulated agent)', () => {
  it('tells both how the loop ended before it exits, and prints no secret', async () => {
    const ws = makeWorkspace('autodeck-notify-run-');
    try {
      const dir = ws.module('ship-it', { scenario: { stepSeconds: 0.05 } });
      const out = join(ws.dir, 'cmd.json');
      const r = await runCli(ws, ['run', dir, ...runFlags(ws), '--notify-url', `${base}/run?auth=tk_secret`,
        '--notify-command', recorder(out).map((w) => JSON.stringify(w)).join(' ')]);
      expect(r.code, r.stderr).toBe(0);
      const posted = seen.filter((x) => x.url.startsWith('/run')).map((x) => JSON.parse(x.body) as NotifyPayload);
      expect(posted).toHaveLength(1);
      expect(posted[0]).toMatchObject({ module: 'ship-it', taskDir: dir, reason: 'done', outcome: 'complete', iteration: 6, event: 'ended' });
      // a run without a transcript: no tokens or cost, rather than 0
      expect(posted[0]).not.toHaveProperty('tokens');
      expect(posted[0]).not.toHaveProperty('costUsd');
      const got = JSON.parse(readFileSync(out, 'utf8')) as { stdin: string; env: Record<string, string> };
      expect(JSON.parse(got.stdin)).toEqual(posted[0]);
      expect(got.env.AUTODECK_EVENT_REASON).toBe('done');
      expect(r.stderr + r.stdout).not.toContain('tk_secret');
    } finally {
      ws.cleanup();
    }
  });
});
