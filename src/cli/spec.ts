import type { CommandContext } from '../commands/context.js';
import type { SettingName } from '../config/schema.js';

/** A flag of one command (the settings' flags come from the settings table). */
export interface FlagSpec {
  /** As typed, without the dashes: `refuse-failed`. Parsed flags are keyed camelCase (`refuseFailed`). */
  readonly name: string;
  readonly type: 'boolean' | 'string';
  /** The value's placeholder in the help, for a string flag: `N`, `FORMAT`. */
  readonly value?: string;
  /** How the default reads in the help; absent for a switch that is off unless given. */
  readonly default?: string;
  readonly description: string;
}

/** The words after the command's name. */
export interface ArgsSpec {
  /** As the usage line shows them: `TASK_DIR...`, `[TASK_DIR]`, `NAME`. */
  readonly usage: string;
  readonly min: number;
  /** Infinity: any number. */
  readonly max: number;
}

export type CommandRun = (ctx: CommandContext) => number | Promise<number>;

/** Where a command is listed in the overview. */
export type CommandGroup = 'start' | 'loops' | 'look' | 'agents';

/**
 * One command of the CLI: everything its help, its parsing and its dispatch need. Add a
 * command by adding one of these to COMMANDS (src/cli/commands.ts).
 */
export interface CommandSpec {
  readonly name: string;
  readonly group: CommandGroup;
  /** One line for the overview, lower case, no full stop (at most ~60 characters). */
  readonly summary: string;
  readonly args: ArgsSpec;
  /** A few sentences for its own help, below the usage line. */
  readonly about?: string;
  readonly flags: readonly FlagSpec[];
  /**
   * The settings this command reads, shown with their defaults in its help. Every setting's
   * flag is accepted by every command (a shell alias may carry --db or --root); `more`
   * adds a pointer to the others for the commands that read them all.
   */
  readonly settings: readonly SettingName[];
  readonly moreSettings?: boolean;
  readonly example: { readonly command: string; readonly says: string };
  /** Exit codes, when they say more than the overview's. */
  readonly exits?: string;
  /** Loaded only when the command runs: start-up time matters (the hooks, `status` in tmux). */
  readonly load: () => Promise<CommandRun>;
}
