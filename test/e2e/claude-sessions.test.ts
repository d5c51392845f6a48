import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeTitle, installClaudeCodes, transcriptDir } from '../helpers/claudeCode.js';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fakeAnthropic.js';
import { daemonsUnderHome, processesUnderHome, startClaudeBg, type ClaudeBg } from '../helpers/claudeBackground.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, startCli, type CliRun } from '../helpers/cli.js';
import { http } from '../helpers/http.js';
import { waitFor } from '../helpers/wait.js';
import { TmuxPane } from '../helpers/tmux.js';
import { openSse } from '../helpers/sse.js';
import { apiTokenPath } from '../../src/api/token.js';
import { RESUMES_IN_PLACE_SINCE } from '../../src/claudeSessions/actions.js';
import { compareVersions, parseVersion } from '../../src/agents/claudeVersion.js';

// Claude Code's own sessions beside autodeck's loops, with the real Claude Code against the
// fake API: sessions started outside autodeck (idle, waiting on a permission, at a usage
// limit, busy), an interactive one and an autodeck loop are all listed by `autodeck serve`
// (its API) and `status --json` with the right states; a permission is approved through
// autodeck's PermissionRequest hook (the file is written, no stray message in the
// transcript); a prompt sent lands in the same session id; a restarted autodeck finds them
// all again; a stop ends one; at the end the daemon and every session are gone.

const installs = await installClaudeCodes();

interface ApiSession {
  id: string;
  sessionId: string;
  kind: string;
  name: string;
  state: string;
  phase: string;
  pid: number | null;
  needs: { reason: string; text: string; requestId: number | null } | null;
  loop: string | null;
}

let ws: Workspace | undefined;
let fake: FakeAnthropic | undefined;
let loopFake: FakeAnthropic | undefined;
let claude: ClaudeBg | undefined;
let pane: TmuxPane | undefined;
const runs: CliRun[] = [];

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') for (const r of runs) process.stderr.write(`--- autodeck serve's stderr:\n${r.stderr().slice(-4000)}\n`);
  for (const r of runs.splice(0)) {
    if (r.child.exitCode === null) {
      r.child.kill('SIGTERM');
      await Promise.race([r.exited, new Promise((res) => setTimeout(res, 10_000))]);
      if (r.child.exitCode === null) r.child.kill('SIGKILL');
    }
  }
  await pane?.tmux(['kill-server']).catch(() => undefined);
  if (claude) {
    await claude.cleanup();
    // the daemon this test started, its sessions and their hooks: nothing is left
    expect(processesUnderHome(claude.home)).toEqual([]);
  }
  await fake?.close();
  await loopFake?.close();
  ws?.cleanup();
  ws = fake = loopFake = claude = pane = undefined;
});

/** Whether this release continues a stopped background session under its own id (2.1.197 starts a copy). */
const resumesInPlace = (version: string) => compareVersions(parseVersion(version)!, parseVersion(RESUMES_IN_PLACE_SINCE)!) >= 0;

/** The permission mode that makes a background session ask before writing a file. */
const manual = (version: string) => (version === '2.1.197' ? 'default' : 'manual');

for (const install of installs) {
  describe.skipIf(!install.bin)(claudeTitle('Claude Code\'s own sessions in autodeck', install), () => {
    it('lists every kind with its state, answers, sends, survives a restart, stops, and cleans up', async () => {
      ws = makeWorkspace('autodeck-claude-sessions-');
      fake = await startFakeAnthropic([]);
      claude = startClaudeBg({ ws, bin: install.bin!, version: install.version, port: fake.port, cwd: ws.dir });
      const c = claude;
      // autodeck's own loop talks to a fake of its own, so that it never takes a step scripted for the sessions
      loopFake = await startFakeAnthropic([]);
      const loopUrl = `http://127.0.0.1:${loopFake.port}`;
      const env = { ...ws.env, ...c.env };
      // (through a wrapper as the agent command: autodeck's own `claude --bg --resume` must reach the sessions' fake)
      const loopAgent = join(ws.dir, 'claude-loop.sh');
      writeFileSync(loopAgent, `#!/bin/sh\nexport ANTHROPIC_BASE_URL=${loopUrl} HTTPS_PROXY=${loopUrl} HTTP_PROXY=${loopUrl}\nexec claude "$@"\n`, { mode: 0o755 });
      // the project's hooks, the PermissionRequest one among them; the user's own settings are not touched
      const userSettingsBefore = existsSync(join(c.home, '.claude', 'settings.json')) ? readFileSync(join(c.home, '.claude', 'settings.json'), 'utf8') : undefined;
      expect((await runCli(ws, ['init'], { env })).code).toBe(0);
      expect(readFileSync(join(ws.dir, '.claude', 'settings.json'), 'utf8')).toContain('hook permission');

      // 1. sessions started outside autodeck, one at a time so the fake's script stays in step
      fake.push({ text: 'Hello from the background.' });
      const idle = await c.bg('say hello');
      await c.waitAgent(idle, (a) => a.status === 'idle', 'idle after its turn');

      // (its next answer is scripted only once it is approved: the script must stay in step)
      fake.push({ toolUse: { name: 'Bash', input: { command: 'echo approved > approved.txt', description: 'Write a file' } } });
      const asking = await c.bg('write approved.txt', ['--permission-mode', manual(install.version)]);
      await c.waitAgent(asking, (a) => a.status === 'waiting', 'waiting on a permission');

      fake.push({ rateLimit: { message: 'Number of request tokens has exceeded your per-minute rate limit' } });
      const limited = await c.bg('hit the limit');
      await c.waitAgent(limited, (a) => a.state === 'blocked', 'blocked at the usage limit');

      fake.push({ text: 'Slow answer.', delayMs: 600_000 });
      const busy = await c.bg('be slow');
      await c.waitAgent(busy, (a) => a.status === 'busy', 'busy');

      // an interactive session in a terminal
      pane = await TmuxPane.start({ argv: ['claude'], cwd: ws.dir, env: c.env as Record<string, string> });
      await waitFor(async () => (await c.agents(false)).some((a) => a.kind === 'interactive'), 'the interactive session listed', 90_000, 500);

      // the daemon the user's own `claude --bg` started: autodeck reads it, never starts another or restarts it
      const daemons = daemonsUnderHome(c.home);
      expect(daemons).toHaveLength(1);

      // notifications: a command that keeps each one
      const notes = join(ws.dir, 'notes.jsonl');
      const notify = join(ws.dir, 'notify.sh');
      writeFileSync(notify, `#!/bin/sh\ncat >> ${notes}\necho >> ${notes}\n`, { mode: 0o755 });

      // 2. autodeck: serve with its API, and a loop of its own whose agent is Claude Code too
      const serve = async () => {
        const run = startCli(ws!, ['serve', '--api-port', '0', '--root', ws!.root, '--agent', loopAgent, '--agent-profile', 'claude', '--heartbeat', '5', '--stall-threshold', '60', '--notify-command', notify], { env });
        runs.push(run);
        const m = await waitFor(() => /autodeck serve: http:\/\/127\.0\.0\.1:(\d+)/.exec(run.stderr()), 'serve listening', 60_000);
        return { run, port: Number(m[1]), token: readFileSync(apiTokenPath(env), 'utf8').trim() };
      };
      let api = await serve();
      const get = (path: string) => http({ path, port: api.port, token: api.token });
      const post = (path: string, body: unknown) => http({ method: 'POST', path, port: api.port, token: api.token, body }, 90_000);
      const sessions = async (): Promise<ApiSession[]> => {
        const r = await get('/api/claude-sessions');
        expect(r.status).toBe(200);
        return r.json.sessions as ApiSession[];
      };
      const dir = ws.module('claude-loop', { status: 'executing' });
      const started = await post('/api/sessions/auto/task-auto', { taskDir: dir, maxIterations: 5, timeoutMinutes: 30 });
      expect(started.status, started.text).toBe(201);
      await waitFor(async () => (await get(`/api/sessions/${started.json.session}/task-auto`)).json.status === 'running', 'the loop running', 60_000, 500);

      const expectAll = async (what: string) => waitFor(async () => {
        const all = await sessions();
        const by = (id: string) => all.find((s) => s.id === id);
        const inter = all.filter((s) => s.kind === 'interactive');
        const ok = by(idle)?.state === 'idle'
          && by(asking)?.state === 'needs you' && by(asking)?.needs?.reason === 'permission' && by(asking)?.needs?.requestId !== null
          && by(limited)?.state === 'limit'
          && by(busy)?.state === 'working'
          // the person's own terminal, and the loop's agent: the latter is marked as the loop's
          && inter.some((s) => s.loop === null && s.state === 'idle')
          && inter.some((s) => s.loop === dir);
        return ok ? all : undefined;
      }, what, 120_000, 500);
      const listed = await expectAll('every session listed with its state');
      expect(listed.find((s) => s.id === asking)!.needs!.text).toContain('echo approved > approved.txt');

      // status --json says the same
      const status = await runCli(ws, ['status', '--json'], { env });
      const fromStatus = JSON.parse(status.stdout).claudeSessions as ApiSession[];
      expect(fromStatus.find((s) => s.id === limited)).toMatchObject({ state: 'limit', phase: 'limit' });
      expect(fromStatus.find((s) => s.id === asking)).toMatchObject({ state: 'needs you' });
      // the event log has the request and the limit, under each session
      const log = (await runCli(ws, ['log', '--json', '--last', '200'], { env })).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { kind: string; taskDir: string });
      const asked = listed.find((s) => s.id === asking)!;
      expect(log.some((e) => e.kind === 'needs_you' && e.taskDir === `claude:${asked.sessionId}`)).toBe(true);
      expect(log.some((e) => e.kind === 'quota_wait' && e.taskDir === `claude:${listed.find((s) => s.id === limited)!.sessionId}`)).toBe(true);

      // a notification said the permission request needs a person
      const noted = await waitFor(() => (existsSync(notes) ? readFileSync(notes, 'utf8') : ''), 'a notification', 30_000, 250);
      expect(noted).toContain(`claude:${asked.sessionId}`);
      expect(noted).toMatch(/needs you \(permission\)/);

      // 3. approve: the hook hands Claude Code the answer; the file is written; the transcript has no stray message
      fake.push({ text: 'Wrote approved.txt.' });
      const answered = await post(`/api/claude-sessions/${asking}/answer`, { decision: 'allow' });
      expect(answered.status, answered.text).toBe(200);
      await waitFor(() => existsSync(join(ws!.dir, 'approved.txt')), 'approved.txt written', 60_000, 250);
      await c.waitAgent(asking, (a) => a.status === 'idle', 'idle after the approved turn');
      const transcript = readFileSync(join(transcriptDir(c.home, ws.dir), `${asked.sessionId}.jsonl`), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; message?: { content?: unknown } });
      const userTexts = transcript.filter((e) => e.type === 'user').map((e) => (typeof e.message?.content === 'string' ? e.message.content : JSON.stringify(e.message?.content)));
      expect(userTexts[0]).toBe('write approved.txt');
      expect(userTexts.slice(1).every((t) => t.includes('tool_result'))).toBe(true);
      expect(userTexts.join('\n')).not.toMatch(/^1$|"text":"1"/m);

      // 4. send: to the idle session, under its own id; a busy one is refused
      const before = (await c.agents(true)).filter((a) => a.kind === 'background').length;
      const idleId = listed.find((s) => s.id === idle)!.sessionId;
      // a busy session is refused (409); on a release that would copy, every send is (400)
      expect((await post(`/api/claude-sessions/${busy}/prompt`, { prompt: 'hurry' })).status).toBe(resumesInPlace(install.version) ? 409 : 400);
      if (resumesInPlace(install.version)) {
        fake.push({ text: 'Second answer, same session.' });
        const sent = await post(`/api/claude-sessions/${idle}/prompt`, { prompt: 'a second prompt' });
        expect(sent.status, sent.text).toBe(202);
        expect(sent.json).toMatchObject({ id: idle, sessionId: idleId });
        await waitFor(() => readFileSync(join(transcriptDir(c.home, ws!.dir), `${idleId}.jsonl`), 'utf8').includes('Second answer, same session.'), 'the answer in the same transcript', 90_000, 500);
        expect(readFileSync(join(transcriptDir(c.home, ws.dir), `${idleId}.jsonl`), 'utf8')).toContain('a second prompt');
      } else {
        // this release continues a background session only as a copy: refused, before anything was stopped
        const refused = await post(`/api/claude-sessions/${idle}/prompt`, { prompt: 'a second prompt' });
        expect(refused.status, refused.text).toBe(400);
        expect(refused.json.error).toMatch(/only as a copy/);
        expect((await c.agents(true)).find((a) => a.id === idle)).toMatchObject({ status: 'idle' });
      }
      expect((await c.agents(true)).filter((a) => a.kind === 'background').length).toBe(before);

      // 5. a restarted autodeck finds them all again
      api.run.child.kill('SIGTERM');
      expect(await api.run.exited).toBe(130);
      api = await serve();
      // (the approved session is idle now)
      const again = await waitFor(async () => {
        const all = await sessions();
        const by = (id: string) => all.find((s) => s.id === id);
        // (the loop is taken up again by the new autodeck: its agent is a new process, marked as the loop's once it runs)
        const loops = all.filter((s) => s.kind === 'interactive' && s.loop === dir).length;
        return by(idle)?.state === 'idle' && by(asking)?.state === 'idle' && by(limited)?.state === 'limit' && by(busy)?.state === 'working' && loops === 1 ? all : undefined;
      }, 'the sessions found again by the new autodeck', 120_000, 500);
      const personPid = Number((await pane.tmux(['display-message', '-p', '-t', 'main', '#{pane_pid}'])).trim());
      expect(again.find((s) => s.pid === personPid)).toMatchObject({ kind: 'interactive', loop: null, state: 'idle' });

      // 6. a stop ends one; the event stream says so, and history lists it
      const stream = await openSse(api.port, '/api/events', api.token);
      try {
        expect((await post(`/api/claude-sessions/${busy}/stop`, {})).status).toBe(202);
        await waitFor(async () => (await sessions()).find((s) => s.id === busy)?.state === 'stopped', 'the busy session stopped', 60_000, 500);
        expect((await c.agents(true)).find((a) => a.id === busy)).toMatchObject({ state: 'stopped' });
        const busyId = listed.find((s) => s.id === busy)!.sessionId;
        const ended = await waitFor(() => stream.frames.map((f) => JSON.parse(f.data) as { kind: string; taskDir: string; detail: { outcome?: string } })
          .find((e) => e.kind === 'ended' && e.taskDir === `claude:${busyId}`), 'the end on the event stream', 30_000, 250);
        expect(ended.detail.outcome).toBe('stopped');
      } finally {
        stream.close();
      }
      const history = JSON.parse((await runCli(ws, ['history', '--json'], { env })).stdout) as { claudeSessions: ApiSession[] };
      expect(history.claudeSessions.find((s) => s.id === busy)).toMatchObject({ state: 'stopped' });

      // the loop's own stop, then the user's settings untouched
      expect((await http({ method: 'DELETE', path: `/api/sessions/${started.json.session}/task-auto`, port: api.port, token: api.token })).status).toBe(202);
      const userSettingsAfter = existsSync(join(c.home, '.claude', 'settings.json')) ? readFileSync(join(c.home, '.claude', 'settings.json'), 'utf8') : undefined;
      expect(userSettingsAfter).toBe(userSettingsBefore);
      expect(daemonsUnderHome(c.home)).toEqual(daemons);
    }, 600_000);
  });
}
