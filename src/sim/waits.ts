import { StringDecoder } from 'node:string_decoder';

/** Waits `seconds`; false when aborted first. */
export function sleep(seconds: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, Math.max(0, seconds * 1000));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Waits until a stream that refused a write has drained; false when aborted first. */
export function drained(out: NodeJS.WritableStream, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const done = (ok: boolean) => (): void => {
      out.off('drain', onDrain);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onDrain = done(true);
    const onAbort = done(false);
    out.once('drain', onDrain);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export type LineWait = { line: string } | { end: 'eof' | 'timeout' | 'aborted' };

/**
 * Lines from stdin, split on \n, \r or \r\n (a PTY in cooked mode sends \n; a raw one
 * sends the \r of Enter). Lines typed before anyone asks are kept, like typeahead.
 */
export class LineReader {
  private readonly lines: string[] = [];
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private afterCr = false;
  private ended = false;
  private wake: (() => void) | undefined;

  constructor(private readonly input: NodeJS.ReadableStream) {
    input.on('data', this.onData);
    input.on('end', this.onEnd);
    input.on('close', this.onEnd);
    input.resume();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    for (const ch of text) {
      if (ch === '\n' && this.afterCr) {
        this.afterCr = false;
        continue;
      }
      this.afterCr = ch === '\r';
      if (ch === '\n' || ch === '\r') {
        this.lines.push(this.partial);
        this.partial = '';
      } else {
        this.partial += ch;
      }
    }
    this.wake?.();
  };

  private readonly onEnd = (): void => {
    if (this.ended) return;
    this.ended = true;
    if (this.partial !== '') this.lines.push(this.partial); // a last line without Enter still counts
    this.partial = '';
    this.wake?.();
  };

  /** The next line, or why there is none: end of input, `timeoutSeconds` passed, or aborted. */
  async next(signal: AbortSignal, timeoutSeconds?: number): Promise<LineWait> {
    const deadline = timeoutSeconds === undefined ? undefined : Date.now() + timeoutSeconds * 1000;
    for (;;) {
      const line = this.lines.shift();
      if (line !== undefined) return { line };
      if (this.ended) return { end: 'eof' };
      if (signal.aborted) return { end: 'aborted' };
      const left = deadline === undefined ? undefined : deadline - Date.now();
      if (left !== undefined && left <= 0) return { end: 'timeout' };
      await new Promise<void>((resolve) => {
        const finish = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', finish);
          this.wake = undefined;
          resolve();
        };
        const timer = left === undefined ? undefined : setTimeout(finish, left);
        signal.addEventListener('abort', finish, { once: true });
        this.wake = finish;
      });
    }
  }

  /** Stops listening, so the process can exit while stdin stays open. */
  close(): void {
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.input.pause();
  }
}
