import { childProcess } from '../lazy.js';
import { borrowInput, type AttachIo } from '../attach/io.js';
import { RESET_TERMINAL_MODES } from '../attach/modes.js';
import { lastLine } from './call.js';

/** Enough of ssh's complaint for one line. */
const STDERR_KEEP = 4096;

/**
 * Attach to a loop on another host: `ssh -t` runs the host's tmux client on the user's
 * terminal, with the dashboard's detach key bound to detach there, until it detaches (or the
 * agent's session ends). The terminal is the ssh's alone meanwhile: this side reads none of it.
 * Resolves with the line to show after, an error when ssh could not get there.
 */
export async function sshAttach(argv: readonly string[], io: AttachIo): Promise<{ ok: boolean; text: string }> {
  const stdin = io.input.fd;
  const stdout = io.output.fd;
  if (typeof stdin !== 'number' || typeof stdout !== 'number') return { ok: false, text: 'attaching over ssh needs a real terminal' };
  const restoreInput = borrowInput(io.input, false);
  try {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = childProcess().spawn(argv[0]!, argv.slice(1), { stdio: [stdin, stdout, 'pipe'] });
      let err = '';
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (d: string) => {
        if (err.length < STDERR_KEEP) err += d;
      });
      child.on('error', (e) => resolve({ code: null, stderr: e.message }));
      child.on('close', (c) => resolve({ code: c, stderr: err }));
    });
    if (code === 0) return { ok: true, text: 'detached' };
    return { ok: false, text: lastLine(stderr) || `ssh ended with ${code ?? 'a signal'}` };
  } finally {
    io.output.write(RESET_TERMINAL_MODES);
    restoreInput();
  }
}
