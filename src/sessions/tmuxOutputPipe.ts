import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childProcess } from '../lazy.js';
import { escapeTmuxFormat, shQuote } from './tmuxCommand.js';
import { tmux, type Client } from './tmuxServer.js';

/** A named pipe fed by `pipe-pane`: the pane's raw output while someone listens. */
export class OutputPipe {
  private readonly dir: string;
  private readonly socket: net.Socket;

  constructor(private readonly client: Client, private readonly paneId: string, onData: (data: string) => void) {
    this.dir = mkdtempSync(join(tmpdir(), 'autodeck-tmux-'));
    const fifo = join(this.dir, 'output');
    let fd: number | undefined;
    try {
      childProcess().execFileSync('mkfifo', ['-m', '600', fifo], { stdio: 'ignore' });
      // Read-write so that opening never blocks and no writer's exit ends the stream.
      fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
      this.socket = new net.Socket({ fd, readable: true, writable: false });
      this.socket.setEncoding('utf8');
      this.socket.on('data', (d: string) => onData(d));
      this.socket.on('error', () => { /* closed under us: no more output */ });
      this.socket.unref();
      // Run by /bin/sh, expanded as a format first. Once we are gone, cat dies of SIGPIPE.
      tmux(this.client, [['pipe-pane', '-t', paneId, escapeTmuxFormat(`exec cat > ${shQuote(fifo)}`)]]);
    } catch (err) {
      if (fd !== undefined) {
        try {
          closeSync(fd);
        } catch { /* owned by the socket */ }
      }
      rmSync(this.dir, { recursive: true, force: true });
      throw err;
    }
  }

  close(): void {
    try {
      tmux(this.client, [['pipe-pane', '-t', this.paneId]]);
    } catch { /* pane gone */ }
    this.socket.destroy();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
