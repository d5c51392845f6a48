import { afterEach, describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import xtermHeadless from '@xterm/headless';
import { claudeTitle, installClaudeCodes } from '../helpers/claudeCode.js';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fakeAnthropic.js';
import { processesUnderHome, startClaudeBg, type ClaudeBg } from '../helpers/claudeBackground.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';
import { attach } from '../../src/attach/attach.js';
import { spawnPtySession } from '../../src/sessions/pty.js';
import type { Session } from '../../src/sessions/session.js';
import { attachArgv } from '../../src/claudeSessions/actions.js';
import { listClaudeSessions } from '../../src/claudeSessions/reader.js';
import { DashboardPane } from '../helpers/dashboardPane.js';
import { tmuxAvailable } from '../../src/sessions/tmuxServer.js';

// Attaching to one of Claude Code's background sessions the way the dashboard does: the
// real `claude attach <id>` in a terminal of autodeck's, handed to the user's (played by
// stand-in streams and an emulator); autodeck's detach key leaves it, and the session runs on.

const installs = await installClaudeCodes();
const { Terminal } = xtermHeadless;
const DETACH = '\x11';

class FakeInput extends PassThrough {
  readonly isTTY = true;
  isRaw = false;
  setRawMode(raw: boolean): this {
    this.isRaw = raw;
    return this;
  }
}

class FakeOutput extends EventEmitter {
  readonly isTTY = true;
  readonly term: InstanceType<typeof Terminal>;
  constructor(public columns: number, public rows: number) {
    super();
    this.term = new Terminal({ cols: columns, rows, allowProposedApi: true });
  }
  write(data: string): boolean {
    this.term.write(data);
    return true;
  }
  screen(): string {
    const buf = this.term.buffer.active;
    return Array.from({ length: this.term.rows }, (_, y) => buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '').join('\n');
  }
}

let ws: Workspace | undefined;
let fake: FakeAnthropic | undefined;
let claude: ClaudeBg | undefined;
let session: Session | undefined;
let pane: DashboardPane | undefined;

afterEach(async () => {
  await pane?.kill();
  session?.dispose();
  if (claude) {
    await claude.cleanup();
    expect(processesUnderHome(claude.home)).toEqual([]);
  }
  await fake?.close();
  ws?.cleanup();
  ws = fake = claude = session = pane = undefined;
});

for (const install of installs) {
  describe.skipIf(!install.bin)(claudeTitle('attaching to a Claude Code background session', install), () => {
    it('shows the session in the user\'s terminal; the detach key leaves it running', async () => {
      ws = makeWorkspace('autodeck-claude-attach-');
      fake = await startFakeAnthropic([{ text: 'Hello from the background.' }]);
      claude = startClaudeBg({ ws, bin: install.bin!, version: install.version, port: fake.port });
      const id = await claude.bg('say hello');
      await claude.waitAgent(id, (a) => a.status === 'idle', 'idle after its turn');
      const program = join(ws.dir, 'claude', 'bin', 'claude');
      const listed = await listClaudeSessions({ program, configDir: join(claude.home, '.claude'), env: claude.env });
      const s = listed.sessions.find((x) => x.id === id)!;

      session = spawnPtySession({ name: `claude attach ${id}`, argv: attachArgv(program, s), cwd: claude.cwd, env: claude.env as Record<string, string> });
      const input = new FakeInput();
      const output = new FakeOutput(120, 40);
      const attached = attach(session, { input: input as never, output: output as never }, { detachByte: DETACH });
      await waitFor(() => output.screen().includes('Hello from the background.'), `the session's conversation on the user's screen:\n${output.screen()}`, 60_000, 100);
      input.write(DETACH);
      expect(await attached).toBe('detached');
      session.dispose();
      await waitFor(() => session!.exited, 'the attach client gone', 10_000, 50);
      // the session itself runs on, idle, under the same id
      expect((await claude.agents(false)).find((a) => a.id === id)).toMatchObject({ status: 'idle', sessionId: s.sessionId });
    }, 180_000);

    it.skipIf(!tmuxAvailable().ok)('in the dashboard: the row, Enter attaches, the detach key comes back to the table', async () => {
      ws = makeWorkspace('autodeck-claude-attach-dash-');
      fake = await startFakeAnthropic([{ text: 'Hello from the background.' }]);
      claude = startClaudeBg({ ws, bin: install.bin!, version: install.version, port: fake.port });
      const id = await claude.bg('say hello');
      await claude.waitAgent(id, (a) => a.status === 'idle', 'idle after its turn');
      const env = DashboardPane.envFor(ws, Object.fromEntries(Object.entries(claude.env).filter((e): e is [string, string] => e[1] !== undefined)));
      pane = await DashboardPane.start({ ws, name: 'claude-attach', args: ['--root', ws.root, '--db', ws.db], env, cols: 120, rows: 40 });
      // no task module here: the session is the only row, selected
      await pane.waitScreen((s) => /› ✻ .+ · idle\s+bg/.test(s) && s.includes('1 Claude Code session'), 'the session\'s row', 60_000);
      await pane.keys('Enter');
      await pane.waitScreen((s) => s.includes('Hello from the background.') && !s.includes('1 Claude Code session'), 'the session in the terminal', 60_000);
      await pane.keys('C-q');
      await pane.waitScreen((s) => s.includes(`detached from claude attach ${id}`) && /› ✻ /.test(s), 'the table again', 60_000);
      expect((await claude.agents(false)).find((a) => a.id === id)).toMatchObject({ status: 'idle' });
    }, 180_000);
  });
}
