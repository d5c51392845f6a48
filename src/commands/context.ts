import type { Settings } from '../config/schema.js';

/** Loops a dashboard starts as soon as it is up (the demo). */
export interface DashboardStart {
  dir: string;
  options?: { maxIterations?: number; timeoutMinutes?: number };
}

/**
 * Opens the dashboard and resolves with the exit code when the user quits. It lives in
 * components/ (React), which src/ never imports: the bin hands it in.
 */
export type DashboardLauncher = (ctx: CommandContext, opts: { title?: string; start?: DashboardStart[]; follow?: boolean }) => Promise<number>;

/** What every command gets from the CLI: its words, its flags, the settings and the streams. */
export interface CommandContext {
  args: string[];
  flags: Record<string, unknown>;
  settings: Settings;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
  /** The dashboard, when this process has a terminal to show it in. */
  dashboard?: DashboardLauncher | undefined;
}

/** The exit codes every command uses. */
export const EXIT = { ok: 0, other: 1, usage: 2, conflict: 3, interrupted: 130 } as const;

/** A one-line failure a person can act on; the CLI prints it and exits with `code`. */
export class CliError extends Error {
  constructor(message: string, readonly code: number = EXIT.usage) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * A CliError, also one from another copy of this module: the dashboard is a bundle with
 * its own copy, so `instanceof` alone would miss its errors.
 */
export function isCliError(err: unknown): err is CliError {
  return err instanceof CliError || (err instanceof Error && err.name === 'CliError' && typeof (err as CliError).code === 'number');
}

export function line(stream: NodeJS.WritableStream, text: string): void {
  // a stream its reader closed (EPIPE) takes no more: see superviseThroughClosedOutput
  if ((stream as { destroyed?: boolean }).destroyed) return;
  stream.write(`${text}\n`);
}
