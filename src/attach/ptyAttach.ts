import type { Session } from '../sessions/session.js';
import type { PtySession } from '../sessions/pty.js';
import { borrowInput, type AttachIo, type AttachResult } from './io.js';
import { inputSplitter } from './keys.js';
import { RESET_TERMINAL_MODES } from './modes.js';

/** A session whose screen lives in our own emulator (the pty backend). */
export type ReplayableSession = Session & Pick<PtySession, 'serialize' | 'whenParsed' | 'cols' | 'rows'>;

/**
 * Attach for a session in our own pty: the emulator's state is drawn first, then the
 * agent's raw bytes pass straight to the terminal (the one place they do) and
 * keys straight to the agent, until the detach key or the agent's exit.
 */
export function ptyAttach(session: ReplayableSession, io: AttachIo, detachByte: string): Promise<AttachResult> {
  if (session.exited) return Promise.resolve('exited');
  const { input, output } = io;
  const before = { cols: session.cols, rows: session.rows };
  const split = inputSplitter(detachByte);

  return new Promise((resolve) => {
    let done = false;
    // Output that arrives before the screen is drawn waits, so it lands after it.
    let pending: string[] | undefined = [];
    const fit = (): void => {
      if (output.columns && output.rows) session.resize(output.columns, output.rows);
    };
    const onOutput = (data: string): void => {
      if (pending) pending.push(data);
      else output.write(data);
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
      output.write(RESET_TERMINAL_MODES + session.serialize() + pending!.join(''));
      pending = undefined;
    });
    const restoreInput = borrowInput(input, true);
    input.on('data', onInput);
    input.resume?.();
    output.on('resize', fit);
    session.onExit(() => finish('exited'));

    function finish(result: AttachResult): void {
      if (done) return;
      done = true;
      unsubscribe();
      input.off('data', onInput);
      output.off('resize', fit);
      restoreInput();
      output.write(RESET_TERMINAL_MODES);
      // Back to the size the supervisor knows, so stall hashes compare like with like.
      session.resize(before.cols, before.rows);
      resolve(result);
    }
  });
}
