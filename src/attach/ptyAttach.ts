import type { Session } from '../sessions/session.js';
import type { PtySession } from '../sessions/pty.js';
import { borrowInput, type AttachIo, type AttachResult } from './io.js';
import { detachKeyName, inputSplitter } from './keys.js';
import { bannerBytes, bannerText, keepRegion, MIN_BANNER_ROWS, touchesBanner } from './banner.js';
import { RESET_TERMINAL_MODES } from './modes.js';

/** A session whose screen lives in our own emulator (the pty backend). */
export type ReplayableSession = Session & Pick<PtySession, 'serialize' | 'whenParsed' | 'cols' | 'rows' | 'cursor'>;

/**
 * Attach for a session in our own pty: the emulator's state is drawn first, then the
 * agent's raw bytes pass straight to the terminal (the one place they do) and
 * keys straight to the agent, until the detach key or the agent's exit. The terminal's
 * last row says how to come back (banner.ts); the agent has the rows above it.
 */
export function ptyAttach(session: ReplayableSession, io: AttachIo, detachByte: string): Promise<AttachResult> {
  if (session.exited) return Promise.resolve('exited');
  const { input, output } = io;
  const before = { cols: session.cols, rows: session.rows };
  const split = inputSplitter(detachByte);
  const text = bannerText(session.name, detachKeyName(detachByte));
  const withBanner = (): boolean => (output.rows ?? 0) >= MIN_BANNER_ROWS && (output.columns ?? 0) > 0;

  return new Promise((resolve) => {
    let done = false;
    // Output that arrives before the screen is drawn waits, so it lands after it; so does
    // output while the line is redrawn (its cursor comes from the emulator, which must
    // have parsed exactly what the terminal got).
    let pending: string[] | undefined = [];
    const fit = (): void => {
      if (output.columns && output.rows) session.resize(output.columns, output.rows - (withBanner() ? 1 : 0));
    };
    const banner = (): string => (withBanner() ? bannerBytes(text, output.rows!, output.columns!, session.cursor()) : '');
    const redrawBanner = (): void => {
      if (pending || !withBanner()) return;
      pending = [];
      session.whenParsed(() => {
        if (done) return;
        const held = pending!.join('');
        pending = undefined;
        output.write(banner());
        if (held) onOutput(held);
      });
    };
    const onOutput = (data: string): void => {
      if (pending) {
        pending.push(data);
        return;
      }
      if (!withBanner()) {
        output.write(data);
        return;
      }
      output.write(keepRegion(data, output.rows!));
      if (touchesBanner(data)) redrawBanner();
    };
    const onResize = (): void => {
      fit();
      redrawBanner();
    };
    const onInput = (chunk: Buffer | string): void => {
      if (done) return;
      const { forward, detached } = split(chunk);
      if (forward) session.write(forward);
      if (detached) finish('detached');
    };

    const unsubscribe = session.onOutput((data) => {
      if (!done) onOutput(data);
    });
    // Same tick as the subscription: the snapshot holds exactly the bytes before it.
    session.whenParsed(() => {
      if (done) return;
      fit(); // the emulator reflows now, so the snapshot is drawn at the terminal's size
      const held = pending!.join('');
      pending = undefined;
      // the line (and its scroll region) first: the snapshot then draws above it
      output.write(RESET_TERMINAL_MODES + banner() + '\x1b[H' + session.serialize());
      if (held) onOutput(held);
    });
    const restoreInput = borrowInput(input, true);
    input.on('data', onInput);
    input.resume?.();
    output.on('resize', onResize);
    session.onExit(() => finish('exited'));

    function finish(result: AttachResult): void {
      if (done) return;
      done = true;
      unsubscribe();
      input.off('data', onInput);
      output.off('resize', onResize);
      restoreInput();
      output.write(RESET_TERMINAL_MODES);
      // Back to the size the supervisor knows, so stall hashes compare like with like.
      session.resize(before.cols, before.rows);
      resolve(result);
    }
  });
}
