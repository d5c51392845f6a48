/** The keyboard side of the user's terminal: `process.stdin`, or a stand-in in tests. */
export interface AttachInput {
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  readonly isTTY?: boolean;
  readonly isRaw?: boolean;
  setRawMode?(raw: boolean): unknown;
  readonly readableFlowing?: boolean | null;
  resume?(): unknown;
  pause?(): unknown;
  /** Its file descriptor: the tmux client reads the terminal itself. */
  readonly fd?: number;
}

/** The screen side: `process.stdout`, or a stand-in in tests. */
export interface AttachOutput {
  write(data: string): unknown;
  readonly columns?: number;
  readonly rows?: number;
  on(event: 'resize', listener: () => void): unknown;
  off(event: 'resize', listener: () => void): unknown;
  readonly fd?: number;
}

/** How an attach ended: the detach key (the agent runs on), or the agent's exit. */
export type AttachResult = 'detached' | 'exited';

export interface AttachIo {
  input: AttachInput;
  output: AttachOutput;
}

/**
 * Puts the input in (or out of) raw mode for the attach, not reading the terminal until
 * the attach reads it itself, and returns what puts it back: the raw mode it had, and
 * flowing if it was, else not reading (stopReading), so nothing is read ahead of the next
 * owner (Ink, or the tmux client reading the same terminal).
 */
export function borrowInput(input: AttachInput, raw: boolean): () => void {
  const wasRaw = input.isRaw ?? false;
  const wasFlowing = input.readableFlowing === true;
  if (input.isTTY) input.setRawMode?.(raw);
  stopReading(input);
  return () => {
    if (input.isTTY && (input.isRaw ?? false) !== wasRaw) input.setRawMode?.(wasRaw);
    if (wasFlowing) input.resume?.();
    else stopReading(input);
  };
}

/** What of a Node tty stream's internals stopReading touches (those Node's own pause handler does). */
interface ReadingHandle {
  _handle?: { reading?: boolean; readStop?: () => unknown } | null;
  _readableState?: { reading?: boolean };
}

/**
 * Stops `input` reading the terminal now, so another process (the tmux client) gets every
 * byte. pause() alone is not enough: Node stops a tty's reads only on a 'pause' event, which
 * a stream already paused does not emit, and a stream that had a 'readable' listener (Ink's)
 * keeps its read going after the listener leaves. Seen as a tmux client that never drew: the
 * dashboard took the terminal's answers to its queries. The next reader starts reads again
 * the public way (a 'readable' or 'data' listener, resume()). Does nothing to other streams.
 */
export function stopReading(input: AttachInput): void {
  input.pause?.();
  const internals = input as unknown as ReadingHandle;
  const handle = internals._handle;
  if (!handle?.reading || typeof handle.readStop !== 'function') return;
  handle.reading = false;
  if (internals._readableState) internals._readableState.reading = false;
  handle.readStop();
}
