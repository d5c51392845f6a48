import { EventEmitter } from 'node:events';
import { render, type Instance } from 'ink';
import { App, type AppProps } from '../../components/App.js';
import { ModelContext } from '../../components/hooks/useModel.js';
import { ThemeContext, themeFor } from '../../components/theme.js';
import type { DashboardModel } from '../../src/deck/model.js';
import { KeyInput } from '../../src/deck/keyInput.js';
import { waitFor } from './wait.js';

// STYLE 12: one render helper with a width (ink-testing-library's stdout is fixed at 100
// columns) and a waitForFrame poller instead of sleeps.

/** A terminal's output side: a size, a resize event, and every frame Ink wrote. */
export class FakeStdout extends EventEmitter {
  readonly frames: string[] = [];
  isTTY = true;
  constructor(public columns: number, public rows: number) {
    super();
  }
  write = (frame: string): boolean => {
    this.frames.push(frame);
    return true;
  };
  lastFrame = (): string => this.frames.at(-1) ?? '';
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.emit('resize');
  }
}

/** A terminal's input side, as Ink reads it ('readable' then read()). */
export class FakeStdin extends EventEmitter {
  isTTY = true;
  private queue: string[] = [];
  // what the KeyInput reads through
  override off(event: string, listener: (...args: unknown[]) => void): this {
    return this.removeListener(event, listener);
  }
  write(data: string): void {
    this.queue.push(data);
    this.emit('readable');
  }
  read = (): string | null => this.queue.shift() ?? null;
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

/** Keys as a terminal sends them. */
export const KEYS = {
  up: '\x1b[A', down: '\x1b[B', left: '\x1b[D', right: '\x1b[C', enter: '\r', escape: '\x1b', tab: '\t', shiftTab: '\x1b[Z', backspace: '\x7f',
} as const;

export interface Rendered {
  stdout: FakeStdout;
  stdin: FakeStdin;
  instance: Instance;
  frame(): string;
  /** Types keys one chunk at a time, letting Ink handle each. */
  type(...chunks: string[]): Promise<void>;
  waitForFrame(predicate: (frame: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  unmount(): void;
}

export function renderApp(opts: { model: DashboardModel; columns: number; rows?: number; color?: boolean } & Partial<AppProps>): Rendered {
  const stdout = new FakeStdout(opts.columns, opts.rows ?? 30);
  const stdin = new FakeStdin();
  const { model, columns: _c, rows: _r, color, ...props } = opts;
  const instance = render(
    <ThemeContext.Provider value={themeFor(color ?? false)}>
      <ModelContext.Provider value={model}>
        <App onAttach={() => {}} onQuit={() => {}} {...props} />
      </ModelContext.Provider>
    </ThemeContext.Provider>,
    { stdout: stdout as unknown as NodeJS.WriteStream, stdin: new KeyInput(stdin) as unknown as NodeJS.ReadStream, debug: true, exitOnCtrlC: false, patchConsole: false },
  );
  const frame = (): string => stdout.lastFrame();
  return {
    stdout, stdin, instance, frame,
    async type(...chunks) {
      for (const c of chunks) {
        // A frame is written before the effects that listen for keys run: give a newly
        // shown dialog its turn first, as a person's reaction time would.
        await new Promise((r) => setTimeout(r, 20));
        stdin.write(c);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    waitForFrame: (predicate, what, timeoutMs = 5000) => waitFor(() => (predicate(frame()) ? frame() : undefined), `a frame with ${what}; last:\n${frame()}`, timeoutMs, 10),
    unmount: () => {
      instance.unmount();
      instance.cleanup();
    },
  };
}
