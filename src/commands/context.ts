import type { Settings } from '../config/schema.js';

/** What every command gets from the CLI: its words, its flags, the settings and the streams. */
export interface CommandContext {
  args: string[];
  flags: Record<string, unknown>;
  settings: Settings;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
}

/** Exit codes of SPEC 6. */
export const EXIT = { ok: 0, other: 1, usage: 2, conflict: 3, interrupted: 130 } as const;

/** A one-line failure a person can act on; the CLI prints it and exits with `code`. */
export class CliError extends Error {
  constructor(message: string, readonly code: number = EXIT.usage) {
    super(message);
    this.name = 'CliError';
  }
}

export function line(stream: NodeJS.WritableStream, text: string): void {
  stream.write(`${text}\n`);
}
