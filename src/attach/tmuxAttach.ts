import { childProcess } from '../lazy.js';
import type { TmuxSession } from '../sessions/tmux.js';
import { borrowInput, type AttachInput, type AttachIo, type AttachOutput, type AttachResult } from './io.js';
import { detachKeyName, tmuxKeyName } from './keys.js';
import { bannerText } from './banner.js';
import { RESET_TERMINAL_MODES } from './modes.js';

/** Enough of tmux's complaint for an error message. */
const STDERR_KEEP = 4096;

function fdOf(stream: AttachInput | AttachOutput, what: string): number {
  if (typeof stream.fd === 'number') return stream.fd;
  throw new Error(`attaching to a tmux session needs a real terminal: the ${what} has no file descriptor`);
}

/** Runs the tmux client on the terminal's own descriptors until it exits. */
function runClient(cmd: { file: string; args: string[]; env: Record<string, string> }, stdin: number, stdout: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = childProcess().spawn(cmd.file, cmd.args, { stdio: [stdin, stdout, 'pipe'], env: cmd.env });
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (d: string) => {
      if (stderr.length < STDERR_KEEP) stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr: stderr.trim() }));
  });
}

/**
 * Attach for a tmux session: the real tmux client takes the terminal (it redraws the
 * pane, sets its own terminal modes and resets them when it leaves), with the dashboard's
 * detach key bound to detach-client and named in the session's status line. Our input does not read meanwhile (borrowInput), so
 * Node takes no keys meant for tmux from the same terminal.
 */
export async function tmuxAttach(session: TmuxSession, io: AttachIo, detachByte: string): Promise<AttachResult> {
  if (session.exited || session.pollExit()) return 'exited';
  const stdin = fdOf(io.input, 'input');
  const stdout = fdOf(io.output, 'output');
  const before = session.size();
  const cmd = session.attachCommand(tmuxKeyName(detachByte), bannerText(session.name, detachKeyName(detachByte)));
  let attached = true;
  // With remain-on-exit the client would stay on a dead pane: send it back instead.
  session.onExit(() => {
    if (attached) session.detachClients();
  });
  // Not reading from here: every byte of the terminal is the tmux client's, keys and the answers to its queries.
  const restoreInput = borrowInput(io.input, false);
  try {
    const { code, stderr } = await runClient(cmd, stdin, stdout);
    attached = false;
    if (session.pollExit()) return 'exited';
    // A client that could not attach says why on stderr ("can't find session", "no
    // server"). One that was attached can also end with 1 and nothing to say (tmux's exit
    // value for a lost terminal or a signal; seen now and then on detach in the tests):
    // the agent runs on and the terminal is ours again, which is what detached means.
    if (code !== 0 && stderr) throw new Error(`tmux could not attach to ${session.name}: ${stderr}`);
    return 'detached';
  } finally {
    attached = false;
    io.output.write(RESET_TERMINAL_MODES);
    if (before) session.resize(before.cols, before.rows);
    restoreInput();
  }
}
