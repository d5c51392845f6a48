import type { Session } from '../sessions/session.js';
import { PtySession } from '../sessions/pty.js';
import { TmuxSession } from '../sessions/tmux.js';
import type { AttachIo, AttachResult } from './io.js';
import { ptyAttach } from './ptyAttach.js';
import { tmuxAttach } from './tmuxAttach.js';

export type { AttachInput, AttachIo, AttachOutput, AttachResult } from './io.js';
export { RESET_TERMINAL_MODES } from './modes.js';

export interface AttachOptions {
  /** The control byte that detaches, from the `detachKey` setting: `controlKeyByte('ctrl-q')`. */
  detachByte: string;
}

/**
 * Hands the user's terminal to an agent's session until the detach key
 * ('detached', the agent runs on) or the agent's exit ('exited'). The caller gives up the
 * terminal first (unmount Ink: no one else reads the input or writes the output meanwhile)
 * and redraws after: the terminal is left on the main screen, cleared, modes reset, input
 * in its previous raw mode and paused unless it was flowing. An agent that has already
 * exited resolves 'exited' at once, the terminal untouched.
 */
export async function attach(session: Session, io: AttachIo, opts: AttachOptions): Promise<AttachResult> {
  let result: AttachResult;
  if (session instanceof TmuxSession) result = await tmuxAttach(session, io, opts.detachByte);
  else if (session instanceof PtySession) result = await ptyAttach(session, io, opts.detachByte);
  else throw new Error(`cannot attach to a ${session.backend} session of this kind`);
  // process.stdin stops reading one tick after pause() (Node's own 'pause' handler): let
  // that happen now, or it stops the reads of the next owner (Ink) that start meanwhile.
  await new Promise((resolve) => setImmediate(resolve));
  return result;
}
