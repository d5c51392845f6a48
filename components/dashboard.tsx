import { render, type Instance } from 'ink';
import { App } from './App.js';
import { ModelContext } from './hooks/useModel.js';
import { ThemeContext, colorWanted, themeFor } from './theme.js';
import { INITIAL_UI, type UiState } from './state.js';
import { LiveModel, type DashboardModel } from '../src/deck/model.js';
import { withHosts } from '../src/hosts/dashboard.js';
import { HostsModel } from '../src/hosts/model.js';
import { sshAttach } from '../src/hosts/attach.js';
import { KeyInput } from '../src/deck/keyInput.js';
import { attachedTo, openQuietSupervisor, wireExternalNotifier } from '../src/commands/supervised.js';
import type { SupervisorApi } from '../src/commands/serve.js';
import { EXIT, type CommandContext, type DashboardLauncher } from '../src/commands/context.js';
import { controlKeyByte } from '../src/config/settings.js';
import { printable } from '../src/format/event.js';
import { attach } from '../src/attach/attach.js';
import { Notifier } from '../src/notify/notifier.js';
import { keyTrace, keyTraceOn, startupMark } from '../src/trace.js';
import { FrameWriter, LIVE_TICK_MS, syncOutputWanted, dumpScreen } from '../src/term/frameWriter.js';
import { everyNthTick, ticksIn } from '../src/supervisor/tick.js';
import { LiveColumns, LiveColumnsContext } from './hooks/liveColumns.js';
import { startClaudeService } from '../src/claudeSessions/service.js';
import { isClaudeKey } from '../src/claudeSessions/rowActions.js';

/**
 * Ink's render throttle: none (0). A key's effect is drawn as soon as React has rendered
 * it, not behind a 33 ms frame slot: under the flood row (400,000 lines, 19 other loops)
 * key-to-screen p50 went from 46-56 ms at 30 fps to 31-47 ms (test/faults/dashboard-flood,
 * docs/faults.md). Changes of the data are still held to 10 frames a second by the model's
 * own coalescing (CHANGE_COALESCE_MS), and the agent screen by its ScreenFeed, so this
 * adds no frames of their own.
 */
const KEY_FPS = 0;
/** The full-screen buffer: the dashboard leaves the user's scrollback as it found it. */
const ENTER_ALT_SCREEN = '\x1b[?1049h\x1b[H';
const LEAVE_ALT_SCREEN = '\x1b[?1049l';

type Next = { kind: 'quit' } | { kind: 'attach'; key: string };

// The bin starts the dashboard's own call through the bundle itself (no ES module loaded).
export { dashboardEntry } from '../src/entries/dashboard.js';

/** Another host's events notify from a little before this dashboard started (its clock may be a little off). */
const REMOTE_NOTIFY_MARGIN_MS = 10_000;

/** A Claude Code session in this terminal through `claude attach`, until the detach key; what to say after. */
async function attachClaude(model: DashboardModel, key: string, io: { input: NodeJS.ReadStream; output: NodeJS.WriteStream }, detachByte: string): Promise<UiState['message']> {
  const taken = model.claude?.attach(key);
  if (!taken) return { text: 'Claude Code sessions are not watched here', tone: 'error' };
  if ('ok' in taken) return { text: printable(`not attached: ${taken.message}`), tone: 'error' };
  try {
    const how = await attach(taken.session, io, { detachByte });
    return { text: how === 'exited' ? 'claude attach ended' : `detached from ${printable(taken.session.name)}`, tone: 'info' };
  } catch (err) {
    return { text: `attach failed: ${printable((err as Error).message.split('\n')[0]!)}`, tone: 'error' };
  } finally {
    taken.release();
  }
}

/**
 * The dashboard (`autodeck`, `autodeck demo`): the supervisor in this process, adopting
 * orphaned loops first, the Ink app over it, attach mode between renders, and
 * on quit the loops left for the next launch (pty suspended, tmux kept running).
 */
export const runDashboard: DashboardLauncher = async (ctx: CommandContext, opts = {}): Promise<number> => {
  const { settings } = ctx;
  const stdin = process.stdin;
  const stdout = process.stdout;
  startupMark('dashboard: start');
  const { store, supervisor } = openQuietSupervisor(settings, ctx.agentEnv);
  startupMark('dashboard: supervisor open');
  let api: SupervisorApi | undefined;
  let model: (DashboardModel & { close(): void }) | undefined;
  const cleanup: (() => unknown)[] = [];
  const problems: string[] = [];
  try {
    supervisor.adoptOrphans();
    supervisor.keepAdopting();
    startupMark('dashboard: orphans adopted');
    const local = new LiveModel(supervisor, store, settings.roots, settings.detachKey);
    // Claude Code's own sessions beside the loops (nothing runs while Claude Code has none)
    const claude = startClaudeService({ supervisor, store, settings, takeOrphans: true });
    cleanup.push(() => claude.close());
    local.showClaude(claude);
    // other hosts (src/hosts/): their rows beside this machine's, read over ssh
    model = withHosts(local, settings, process.env);
    startupMark('dashboard: model');
    if (settings.apiPort > 0) {
      // The HTTP stack loads only when the API is wanted (start-up).
      const { startApiForSupervisor } = await import('../src/commands/serve.js');
      api = await startApiForSupervisor({ supervisor, store, port: settings.apiPort, onError: () => {}, hosts: model instanceof HostsModel ? model : undefined });
      cleanup.push(() => api?.close());
    }
    const notifier = new Notifier({
      channels: settings.notify, write: (bytes) => stdout.write(bytes), now: Date.now, env: process.env, attached: attachedTo(supervisor),
    });
    // The dashboard owns the screen: a failed delivery is not printed over it.
    const external = wireExternalNotifier(supervisor, settings, () => {});
    supervisor.on('event', (e) => notifier.handle(e));
    // what other hosts' loops and Claude Code sessions need, as this machine's
    // (not the backlog the first look at a host brings: what happened before this dashboard is history)
    const since = Date.now() - REMOTE_NOTIFY_MARGIN_MS;
    if (model instanceof HostsModel) {
      model.remoteEvents.on('event', (e) => {
        if (Date.parse(e.at) < since) return;
        notifier.handle(e);
        external.handle(e);
      });
    }
    for (const s of opts.start ?? []) {
      const r = model.start(s.dir, s.options ?? {});
      if (!r.ok) problems.push(printable(r.message));
    }

    const theme = themeFor(colorWanted(process.env));
    let ui: UiState = problems.length > 0 ? { ...INITIAL_UI, message: { text: problems[0]!, tone: 'error' } } : INITIAL_UI;
    const detachByte = controlKeyByte(settings.detachKey);
    // Ink reads keys through this: one key per read (see KeyInput), and nothing read while Ink is away.
    const keys = new KeyInput(stdin);
    cleanup.push(() => keys.release());
    stdout.write(ENTER_ALT_SCREEN);
    cleanup.push(() => stdout.write(LEAVE_ALT_SCREEN));
    // Ink draws into a model of the terminal; only the cells that changed reach the real one.
    // AUTODECK_FRAME_DUMP=FILE: the model's text after each frame, for tests and bug reports.
    const dump = process.env.AUTODECK_FRAME_DUMP;
    let frameCount = 0;
    const frames: FrameWriter = new FrameWriter(stdout, {
      sync: syncOutputWanted(process.env),
      onFrame: (bytes) => {
        if (frameCount++ === 0) startupMark(`dashboard: first frame written (${bytes} B)`);
      },
      onShown: dump ? (screen) => dumpScreen(dump, screen) : undefined,
      // the clocks move on the supervisor's tick: no wake-up of their own
      pulse: (listener) => everyNthTick(supervisor, ticksIn(LIVE_TICK_MS), listener),
    });
    cleanup.push(() => frames.close());
    // The table's clocks and plain cells, kept current by the frame writer between Ink's frames.
    const liveModel = model;
    const liveColumns = new LiveColumns(() => liveModel.getSnapshot().rows);
    frames.setLiveCells(liveColumns);

    // A hangup (the ssh link dropped) or a kill is a quit: loops are left, not lost.
    let signalled = false;
    let instance: Instance | undefined;
    let resolveNext: ((n: Next) => void) | undefined;
    const onSignal = (): void => {
      signalled = true;
      resolveNext?.({ kind: 'quit' });
    };
    for (const s of ['SIGTERM', 'SIGHUP'] as const) process.on(s, onSignal);
    cleanup.push(() => {
      for (const s of ['SIGTERM', 'SIGHUP'] as const) process.off(s, onSignal);
    });

    for (;;) {
      const next = await new Promise<Next>((resolve) => {
        resolveNext = resolve;
        if (signalled) return resolve({ kind: 'quit' });
        keys.hold();
        // A fresh Ink starts at the top of a blank screen, drawn whole.
        frames.reset();
        instance = render(
          <ThemeContext.Provider value={theme}>
            <ModelContext.Provider value={model}>
              <LiveColumnsContext.Provider value={liveColumns}>
                <App
                  title={opts.title}
                  follow={opts.follow ?? false}
                  throwaway={opts.throwaway ?? false}
                  initial={ui}
                  onState={(s) => { ui = s; }}
                  onAttach={(key) => resolve({ kind: 'attach', key })}
                  onQuit={() => resolve({ kind: 'quit' })}
                />
              </LiveColumnsContext.Provider>
            </ModelContext.Provider>
          </ThemeContext.Provider>,
          { stdin: keys as unknown as NodeJS.ReadStream, stdout: frames as unknown as NodeJS.WriteStream, exitOnCtrlC: false, patchConsole: true, maxFps: KEY_FPS, onRender: keyTraceOn ? ({ renderTime }: { renderTime: number }) => keyTrace(`ink render ${renderTime.toFixed(1)} ms`) : undefined },
        );
        startupMark('dashboard: render returned');
        instance.waitUntilExit().catch((err: unknown) => {
          problems.push(String(err));
          resolve({ kind: 'quit' });
        });
      });
      instance?.unmount();
      instance?.cleanup();
      instance = undefined;
      frames.pause();
      keys.release();
      if (next.kind === 'quit') break;
      const remote = model.remoteAttach?.(next.key);
      if (remote) {
        const done = 'error' in remote ? { ok: false, text: remote.error } : await sshAttach(remote.argv, { input: stdin, output: stdout });
        const text = 'error' in remote ? `attach: ${remote.error}` : done.ok ? `detached from ${remote.session} on ${remote.host}` : `attach over ssh failed: ${done.text}`;
        if (!('error' in remote)) stdout.write(ENTER_ALT_SCREEN);
        ui = { ...ui, overlay: { kind: 'none' }, message: { text: printable(text), tone: done.ok ? 'info' : 'error' } };
        continue;
      }
      if (isClaudeKey(next.key) || model.claude?.entry(next.key)) {
        ui = { ...ui, overlay: { kind: 'none' }, message: await attachClaude(model, next.key, { input: stdin, output: stdout }, detachByte) };
        stdout.write(ENTER_ALT_SCREEN);
        continue;
      }
      const taken = model.takeSession(next.key);
      if (!taken) {
        ui = { ...ui, message: { text: 'no agent to attach to now: it ended or is restarting (try again in a moment)', tone: 'error' } };
        continue;
      }
      let text: string;
      let tone: 'info' | 'error' = 'info';
      try {
        const how = await attach(taken.session, { input: stdin, output: stdout }, { detachByte });
        text = how === 'exited' ? 'the agent exited while attached' : `detached from ${taken.session.name}`;
      } catch (err) {
        text = `attach failed: ${printable((err as Error).message.split('\n')[0]!)}`;
        tone = 'error';
      } finally {
        taken.release();
      }
      // Attach ends on the main screen (the agent drew there); the dashboard lives on the other.
      stdout.write(ENTER_ALT_SCREEN);
      ui = { ...ui, overlay: { kind: 'none' }, message: { text, tone } };
    }
  } finally {
    // Each step on its own: one failing must not keep the loops from being left properly.
    const left = (() => {
      try {
        return supervisor.suspendAll();
      } catch {
        return 0;
      }
    })();
    for (const step of [() => model?.close(), ...cleanup.reverse(), () => supervisor.close(), () => store.close()]) {
      try {
        await step();
      } catch { /* keep going */ }
    }
    if (left > 0 && !opts.throwaway) ctx.stderr.write(`autodeck: left ${left} loop${left === 1 ? '' : 's'} for the next launch (pty suspended, tmux still running)\n`);
  }
  for (const p of problems) ctx.stderr.write(`autodeck: ${p}\n`);
  return EXIT.ok;
};
