import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A tmux control-mode client (`tmux -C`) on a private server: commands go down one pipe
 * and their output comes back framed by %begin / %end, so a look at the screen
 * (`capture-pane -p`) costs a round trip to the server, not a process start. Used to time
 * key-to-screen finely enough to judge 100 ms. Attached with `no-output`: the pane's
 * bytes are not echoed to it, and it has no size of its own (it never resizes the window).
 */
export class TmuxControl {
  private readonly child: ChildProcess;
  private buffer = '';
  private block: string[] | undefined;
  private readonly waiting: { resolve: (lines: string[]) => void; reject: (err: Error) => void }[] = [];
  private closed = false;

  constructor(socket: string, session: string, env: Record<string, string>) {
    this.child = spawn('tmux', ['-L', socket, '-C', 'attach-session', '-f', 'no-output,ignore-size', '-t', session], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    // The attach itself is answered with a block of its own.
    this.waiting.push({ resolve: () => undefined, reject: () => undefined });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (d: string) => this.onData(d));
    this.child.on('close', () => {
      this.closed = true;
      for (const w of this.waiting.splice(0)) w.reject(new Error('the tmux control client ended'));
    });
  }

  private onData(data: string): void {
    this.buffer += data;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (this.block === undefined) {
        if (line.startsWith('%begin ')) this.block = [];
        continue; // a notification
      }
      if (line.startsWith('%end ') || line.startsWith('%error ')) {
        const lines = this.block;
        this.block = undefined;
        const w = this.waiting.shift();
        if (line.startsWith('%error ')) w?.reject(new Error(`tmux: ${lines.join(' ')}`));
        else w?.resolve(lines);
        continue;
      }
      this.block.push(line);
    }
  }

  /** One tmux command (as typed at tmux's prompt); resolves with its output lines. */
  command(text: string): Promise<string[]> {
    if (this.closed) return Promise.reject(new Error('the tmux control client ended'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin!.write(`${text}\n`);
    });
  }

  close(): void {
    if (this.closed) return;
    this.child.stdin!.end();
    this.child.kill();
  }
}
