/**
 * What one dashboard frame costs, without a terminal or a supervisor in the way: the App
 * over a fake model of 20 running loops, rendered by Ink (colour on) into a stdout of
 * 120x40 that counts what it is sent. It measures this process's CPU per frame for the two
 * kinds of frame a busy dashboard draws: the clock's (every elapsed cell moves) and a
 * signal's (one row changes). Where the dashboard bench says how much, this says per what.
 *
 * Not part of `npm test`: `npm run bench:frame` (React in production mode, as the bundle).
 * Environment: BENCH_FRAME_SECONDS (each phase, default 20).
 */
import { EventEmitter } from 'node:events';
import { render } from 'ink';
import { App } from '../../components/App.js';
import { ModelContext } from '../../components/hooks/useModel.js';
import { ThemeContext, themeFor } from '../../components/theme.js';
import { FakeModel, loopRow, moduleRow } from '../helpers/fakeModel.js';
import { envNumber, machine, progress, sleep, table } from './report.js';

const MODULES = 20;
const SIGNAL_EVERY_MS = 250;

/** Ink brackets each frame with synchronized-output marks, written on their own. */
const SYNC_MARKS = new Set(['\x1b[?2026h', '\x1b[?2026l']);

class CountingStdout extends EventEmitter {
  isTTY = true;
  columns = 120;
  rows = 40;
  frames = 0;
  bytes = 0;
  write = (s: string): boolean => {
    if (SYNC_MARKS.has(s)) return true;
    this.frames++;
    this.bytes += Buffer.byteLength(s);
    return true;
  };
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Phase {
  cpuMs: number;
  frames: number;
  bytes: number;
}

async function measure(seconds: number, stdout: CountingStdout, during?: () => Promise<void>): Promise<Phase> {
  const c0 = cpuMs();
  const f0 = stdout.frames;
  const b0 = stdout.bytes;
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    if (during) await during();
    else await sleep(Math.min(250, end - Date.now()));
  }
  return { cpuMs: cpuMs() - c0, frames: stdout.frames - f0, bytes: stdout.bytes - b0 };
}

async function main(): Promise<void> {
  const seconds = envNumber('BENCH_FRAME_SECONDS', 20, 2);
  const names = Array.from({ length: MODULES }, (_, i) => `bench-${String(i + 1).padStart(2, '0')}`);
  const model = new FakeModel(names.map((n, i) => moduleRow(n, {
    key: `/ws/AiTasks/${n}`,
    loop: loopRow(`/ws/AiTasks/${n}`, { iteration: i + 1, startedAt: new Date(Date.now() - i * 7_321).toISOString() }),
  })));
  const stdout = new CountingStdout();
  const stdin = Object.assign(new EventEmitter(), { isTTY: true, setRawMode() {}, setEncoding() {}, read: () => null, ref() {}, unref() {}, resume() {}, pause() {} });
  const instance = render(
    <ThemeContext.Provider value={themeFor(true)}>
      <ModelContext.Provider value={model}>
        <App onAttach={() => {}} onQuit={() => {}} />
      </ModelContext.Provider>
    </ThemeContext.Provider>,
    { stdout: stdout as unknown as NodeJS.WriteStream, stdin: stdin as unknown as NodeJS.ReadStream, exitOnCtrlC: false, patchConsole: false, maxFps: 10 },
  );
  let signals = 0;
  const signal = async (): Promise<void> => {
    const row = model.getSnapshot().rows[signals % MODULES]!;
    model.patchRow(row.key, { loop: { ...row.loop!, iteration: row.loop!.iteration + 1, step: signals % 2 ? 'exec' : 'check' } });
    signals++;
    await sleep(SIGNAL_EVERY_MS);
  };

  progress(`warming up: ${MODULES} rows, 100 signals`);
  for (let k = 0; k < 100; k++) {
    await signal();
  }
  progress(`clock only, ${seconds} s`);
  const clock = await measure(seconds, stdout);
  progress(`a signal every ${SIGNAL_EVERY_MS} ms, ${seconds} s`);
  const s0 = signals;
  const busy = await measure(seconds, stdout, signal);
  instance.unmount();

  const per = (p: Phase): string => `${(p.cpuMs / Math.max(1, p.frames)).toFixed(2)} ms`;
  const rows = [
    ['Dashboard frame (120x40, 20 running rows)', 'frames', 'CPU', 'CPU per frame', 'bytes per frame'],
    [`clock only, ${seconds} s`, String(clock.frames), `${clock.cpuMs.toFixed(0)} ms`, per(clock), `${(clock.bytes / Math.max(1, clock.frames)).toFixed(0)}`],
    [`+ a signal every ${SIGNAL_EVERY_MS} ms (${signals - s0} signals)`, String(busy.frames), `${busy.cpuMs.toFixed(0)} ms`, per(busy), `${(busy.bytes / Math.max(1, busy.frames)).toFixed(0)}`],
  ];
  console.log(`autodeck dashboard frame benchmark: ${machine({ clockTicks: false })}; NODE_ENV=${process.env.NODE_ENV ?? '(unset)'}`);
  console.log('');
  console.log(table(rows, ['l', 'r', 'r', 'r', 'r']));
  console.log('');
  console.log('CPU is this whole process (React, Ink, the fake model); a frame is one write of Ink to the terminal. ' +
    'With a signal every 250 ms the clock has no frames of its own: a render resets it.');
}

main().then(() => process.exit(0), (err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
