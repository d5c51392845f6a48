import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, type Instance } from 'ink';

// Ink decides once, as it loads, whether it runs in CI (then it draws only the last frame);
// the dashboard's bin hides CI from it the same way (bin/autodeck.js), and so does this test.
vi.hoisted(() => {
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
});
import { App } from '../../components/App.js';
import { ModelContext } from '../../components/hooks/useModel.js';
import { ThemeContext, themeFor } from '../../components/theme.js';
import { LiveColumns, LiveColumnsContext } from '../../components/hooks/liveColumns.js';
import { KeyInput } from '../../src/deck/keyInput.js';
import { FrameWriter, type Pulse } from '../../src/term/frameWriter.js';
import { SYNC_BEGIN, SYNC_END } from '../../src/term/frameDiff.js';
import { gridOfBuffer, type Grid } from '../../src/term/grid.js';
import { modelTerminal, type ModelTerminal } from '../../src/term/model.js';
import { FakeModel, loopRow, moduleRow } from '../helpers/fakeModel.js';
import { FakeStdin } from '../helpers/renderApp.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The real terminal behind the writer: every write counted and fed to an emulator of its
 * own, so a test can say what a person would see and what it cost.
 */
class Screen extends EventEmitter {
  isTTY = true;
  writes: string[] = [];
  readonly term: ModelTerminal;
  constructor(public columns: number, public rows: number) {
    super();
    this.term = modelTerminal(columns, rows);
  }
  write = (bytes: string): boolean => {
    this.writes.push(bytes);
    this.term.write(bytes);
    return true;
  };
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.term.resize(columns, rows);
    this.emit('resize');
  }
  grid(): Promise<Grid> {
    return new Promise((r) => this.term.write('', () => r(gridOfBuffer(this.term.buffer.active, this.term.cols, this.term.rows))));
  }
  text(g: Grid): string {
    return g.cells.map((row) => row.map((c) => c.chars).join('')).join('\n');
  }
}

const NAMES = Array.from({ length: 20 }, (_, i) => `mod-${String(i + 1).padStart(2, '0')}`);

function dashboard({ sync, live }: Mode, cols = 160, rows = 50, before = '', pulse?: Pulse) {
  // Twenty running loops whose elapsed clocks tick every second; the first module is idle (so `s` asks).
  const model = new FakeModel([
    moduleRow('idle-one', { key: '/ws/AiTasks/idle-one' }),
    ...NAMES.map((n, i) => moduleRow(n, {
      key: `/ws/AiTasks/${n}`,
      loop: loopRow(`/ws/AiTasks/${n}`, { iteration: i + 1, startedAt: new Date(Date.now() - i * 7_321).toISOString() }),
    })),
  ]);
  const screen = new Screen(cols, rows);
  if (before) screen.write(before);
  const frames: number[] = [];
  const shown: Grid[] = [];
  const writer = new FrameWriter(screen, { sync, onFrame: (n) => frames.push(n), onShown: (g) => shown.push(g), pulse });
  // Every write of Ink's: a frame React and Ink drew (the clocks alone must cause none when live).
  const inkWrites = vi.spyOn(writer, 'write');
  const columns = live ? new LiveColumns(() => model.getSnapshot().rows) : undefined;
  writer.setLiveCells(columns);
  const stdin = new FakeStdin();
  const instance: Instance = render(
    <ThemeContext.Provider value={themeFor(true)}>
      <ModelContext.Provider value={model}>
        <LiveColumnsContext.Provider value={columns}>
          <App onAttach={() => {}} onQuit={() => {}} />
        </LiveColumnsContext.Provider>
      </ModelContext.Provider>
    </ThemeContext.Provider>,
    { stdout: writer as unknown as NodeJS.WriteStream, stdin: new KeyInput(stdin) as unknown as NodeJS.ReadStream, exitOnCtrlC: false, patchConsole: false, maxFps: 10 },
  );
  const stop = (): void => {
    instance.unmount();
    instance.cleanup();
    writer.close();
    screen.term.dispose();
  };
  /** Waits for the real screen to show `what`, then checks it equals the writer's model cell for cell. */
  const settledOn = async (test: (text: string) => boolean, what: string): Promise<string> => {
    let last = '';
    const text = await waitFor(async () => {
      await writer.flushed();
      last = screen.text(await screen.grid());
      return test(last) ? last : undefined;
    }, what, 10_000, 20).catch((err: unknown) => {
      throw new Error(`${String(err)}; the screen:\n${last}`);
    });
    await writer.flushed();
    expect(await screen.grid()).toEqual(writer.screen());
    return text;
  };
  return { model, screen, writer, frames, shown, stdin, stop, settledOn, inkWrites };
}

/** Synchronized output or not; the clocks kept by the writer (as in the dashboard) or by React each second. */
interface Mode {
  sync: boolean;
  live: boolean;
}
const MODES: Mode[] = [{ sync: true, live: true }, { sync: false, live: true }, { sync: true, live: false }, { sync: false, live: false }];

let stops: (() => void)[] = [];
afterEach(() => {
  for (const s of stops) s();
  stops = [];
});

describe.each(MODES)('FrameWriter under the dashboard (synchronized output $sync, live clocks $live)', (mode) => {
  const { sync, live } = mode;
  it('draws the first frame whole, then a ticking clock for a few bytes, and the screen is the model', async () => {
    const d = dashboard(mode);
    stops.push(d.stop);
    await d.settledOn((t) => t.includes('mod-08'), 'the twenty rows');
    const first = d.frames[0]!;
    const before = d.frames.length;
    // Two more frames: the clocks ticked (nothing else changes).
    const text0 = d.screen.text(await d.screen.grid());
    const inkBefore = d.inkWrites.mock.calls.length;
    await waitFor(() => (d.frames.length >= before + 2 ? true : undefined), 'two clock ticks', 10_000, 50);
    await d.settledOn((t) => t !== text0, 'a tick on screen');
    const ticks = d.frames.slice(before);
    // Live clocks move without a React render or an Ink frame; otherwise each tick is one.
    if (live) expect(d.inkWrites.mock.calls.length).toBe(inkBefore);
    else expect(d.inkWrites.mock.calls.length).toBeGreaterThan(inkBefore);
    // A whole 160x50 frame of twenty rows is kilobytes; a tick of twenty short clocks is a few hundred bytes.
    expect(first).toBeGreaterThan(2000);
    for (const bytes of ticks) expect(bytes).toBeLessThan(800);
    const marks = d.screen.writes.filter((w) => w.startsWith(SYNC_BEGIN) && w.endsWith(SYNC_END)).length;
    expect(marks).toBe(sync ? d.screen.writes.length : 0);
  });

  it('draws a step of an unselected row without React when live; the selected row and a new state through React', async () => {
    const d = dashboard(mode);
    stops.push(d.stop);
    await d.settledOn((t) => t.includes('mod-08'), 'the twenty rows');
    const key = '/ws/AiTasks/mod-05';
    const loop = () => d.model.getSnapshot().rows.find((r) => r.key === key)!.loop!;
    const inkText = (from: number): string => d.inkWrites.mock.calls.slice(from).map((c) => String(c[0])).join('');
    const ink0 = d.inkWrites.mock.calls.length;
    d.model.patchRow(key, { loop: { ...loop(), step: 'merge', result: '', next: 'report', iteration: 17 } });
    await d.settledOn((t) => /mod-05 .*17\/20.*merge -> report/.test(t), 'the new step and iteration of mod-05');
    // Live: the writer drew the two cells from the model's rows; Ink wrote nothing.
    if (live) expect(d.inkWrites.mock.calls.length).toBe(ink0);
    else expect(inkText(ink0)).toContain('merge -> report');
    // A new state is coloured: React and Ink draw it.
    const ink1 = d.inkWrites.mock.calls.length;
    d.model.patchRow(key, { loop: { ...loop(), status: 'stalled' } });
    await d.settledOn((t) => /mod-05 +‖ stalled/.test(t), 'mod-05 stalled');
    expect(d.inkWrites.mock.calls.length).toBeGreaterThan(ink1);
    // Select mod-07 (row 8, after idle-one), which then takes a step: the selected row is drawn by React, from its new row.
    d.stdin.write('j');
    await d.settledOn((t) => /^› mod-01 /m.test(t), 'mod-01 selected');
    const ink2 = d.inkWrites.mock.calls.length;
    d.model.patchRow('/ws/AiTasks/mod-01', { loop: { ...d.model.getSnapshot().rows[1]!.loop!, step: 'report', result: '', next: '' } });
    await d.settledOn((t) => /^› mod-01 .* report /m.test(t), 'the selected row\'s new step');
    expect(inkText(ink2)).toContain('report');
    // A row changed while React was spared it, then selected: React draws it as it is now.
    d.model.patchRow('/ws/AiTasks/mod-02', { loop: { ...d.model.getSnapshot().rows[2]!.loop!, step: 'plan', result: '', next: 'check', iteration: 11 } });
    await d.settledOn((t) => /mod-02 .*11\/20.*plan -> check/.test(t), 'mod-02 at iteration 11');
    const ink3 = d.inkWrites.mock.calls.length;
    d.stdin.write('j');
    await d.settledOn((t) => /^› mod-02 /m.test(t), 'mod-02 selected');
    expect(inkText(ink3)).toContain('plan -> check');
  });

  it('sends the first frame as Ink wrote it, over whatever the terminal showed, and the screen is the model', async () => {
    // A shell's leftovers, a scroll region and a colour: the first frame must not depend on them.
    const d = dashboard(mode, 120, 40, `${'old shell output '.repeat(400)}\x1b[5;20r\x1b[41m`);
    stops.push(d.stop);
    await d.settledOn((t) => t.includes('mod-08') && !t.includes('shell'), 'the rows, nothing of the shell');
    // The first write carries the rows themselves (Ink's own bytes, not cells from the model).
    expect(d.screen.writes[1]).toContain('mod-08');
    // What the terminal shows after that frame is reported once the model has it (the frame dump's source).
    expect(d.screen.text(d.shown[0]!)).toContain('mod-08');
  });

  it('leaves a clean screen after a resize, the help overlay, a dialog and invalidate()', async () => {
    const d = dashboard(mode, 120, 40);
    stops.push(d.stop);
    await d.settledOn((t) => t.includes('mod-08'), 'the rows');
    d.screen.resize(100, 30);
    await d.settledOn((t) => t.includes('mod-08') && d.writer.screen().cols === 100, 'the rows at 100x30');
    d.screen.resize(140, 45);
    await d.settledOn((t) => t.includes('mod-08') && d.writer.screen().cols === 140, 'the rows at 140x45');
    d.stdin.write('?');
    await d.settledOn((t) => t.includes('Show all keys'), 'the help overlay');
    d.stdin.write('\x1b');
    await d.settledOn((t) => !t.includes('Show all keys') && t.includes('mod-08'), 'the table again');
    d.stdin.write('s');
    await d.settledOn((t) => t.includes('Start a loop on'), 'the start dialog');
    d.stdin.write('\x1b');
    await d.settledOn((t) => !t.includes('Start a loop on'), 'the dialog closed');
    // Something else drew over the terminal: invalidate() draws the model again, whole.
    d.screen.write('\x1b[H\x1b[2Jgarbage from elsewhere');
    d.writer.invalidate();
    await d.settledOn((t) => !t.includes('garbage') && t.includes('mod-08'), 'the dashboard redrawn');
  });

  it('writes nothing while paused and draws whole after reset()', async () => {
    const d = dashboard(mode, 100, 30);
    stops.push(d.stop);
    await d.settledOn((t) => t.includes('mod-08'), 'the rows');
    d.writer.pause();
    const n = d.screen.writes.length;
    d.screen.write('\x1b[H\x1b[2Jan agent on the screen');
    // A clock tick while paused goes to the model only.
    const f = d.frames.length;
    await new Promise((r) => setTimeout(r, 1200));
    await d.writer.flushed();
    expect(d.frames.length).toBe(f);
    expect(d.screen.writes.slice(n + 1)).toEqual([]);
    d.writer.reset();
    // After reset the model is blank: Ink's next frame fills it again (as after re-entering the alternate screen).
    d.model.patchRow('/ws/AiTasks/mod-01', { loop: { ...d.model.getSnapshot().rows[1]!.loop!, iteration: 99 } });
    await d.settledOn((t) => !t.includes('an agent') && t.includes('mod-08'), 'the dashboard back');
  });
});

describe('FrameWriter given a pulse', () => {
  it('moves the clocks at the pulse it is given (the supervisor\'s tick), and at no timer of its own', async () => {
    const pulses = new EventEmitter();
    const pulse: Pulse = (listener) => {
      pulses.on('beat', listener);
      return () => pulses.off('beat', listener);
    };
    const d = dashboard({ sync: true, live: true }, 160, 50, '', pulse);
    stops.push(d.stop);
    await d.settledOn((t) => t.includes('mod-08'), 'the twenty rows');
    const before = d.frames.length;
    await new Promise((r) => setTimeout(r, 1600));
    // no pulse: the clocks stand still, though more than a second went by
    expect(d.frames.length).toBe(before);
    const text0 = d.screen.text(await d.screen.grid());
    pulses.emit('beat');
    await d.settledOn((t) => t !== text0, 'the clocks moved at the pulse');
    expect(d.frames.length).toBe(before + 1);
    d.writer.setLiveCells(undefined);
    expect(pulses.listenerCount('beat')).toBe(0);
  });
});
