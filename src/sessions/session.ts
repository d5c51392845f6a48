/** How an agent session ended. */
export interface SessionExit {
  exitCode: number;
  signal?: number | undefined;
}

export interface SpawnSpec {
  /** Session name. */
  name: string;
  /** argv[0] is the program, already resolved; never run through a shell. */
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  cols?: number;
  rows?: number;
}

/**
 * Where an agent runs. Both backends look the same to a loop: a process with a
 * screen that can be captured as text, typed into, and killed.
 */
export interface Session {
  readonly name: string;
  readonly backend: 'pty' | 'tmux';
  /** The agent's pid (its process group leader). */
  readonly pid: number;
  readonly exited: boolean;
  /** Raw input to the agent, as keys typed by a person. */
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** The visible screen as lines of text, as a person would see it (no escape sequences). */
  screen(): string[];
  /**
   * Grows whenever the screen may have changed (output parsed, a resize). Absent when the
   * backend cannot tell cheaply; then every heartbeat captures.
   */
  readonly screenVersion?: number;
  /** Called once, when the agent process has exited. */
  onExit(listener: (exit: SessionExit) => void): void;
  /** Raw output, for attach mode and throttled screen updates. Returns an unsubscribe. */
  onOutput(listener: (data: string) => void): () => void;
  /**
   * Calls `fn` once every byte received so far is on the screen. Absent when screen()
   * already reads the screen as it is now (tmux captures the pane).
   */
  whenParsed?(fn: () => void): void;
  /** Sends a signal to the agent's whole process group. */
  kill(signal?: NodeJS.Signals): void;
  /** Releases the emulator and listeners; kills the agent if it still runs. */
  dispose(): void;
  /** Stops watching but leaves the agent running, for a backend whose agents outlive us (tmux). */
  detach?(): void;
}

export type SessionFactory = (spec: SpawnSpec) => Session;
