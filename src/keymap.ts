import type { DeckRow } from './deck/deck.js';

/** What decides whether a command can run now. */
export interface KeyContext {
  /** The selected row, if any. */
  row?: DeckRow | undefined;
}

export type CommandId =
  | 'up' | 'down' | 'start' | 'stop' | 'forceStop' | 'attach' | 'restart' | 'log' | 'history' | 'filter' | 'detail' | 'help' | 'quit';

export interface Command {
  id: CommandId;
  /** Key names as the dashboard reads them: a character, or `up`, `down`, `return`, `escape`. */
  keys: readonly string[];
  /** For the help overlay and the README. */
  description: string;
  /** For the footer: a word or two. */
  label: string;
  group: 'move' | 'loops' | 'views' | 'app';
  /** Why the command cannot run now, or undefined when it can. */
  disabled?: (ctx: KeyContext) => string | undefined;
  /** Asks for a confirmation first. */
  dangerous?: boolean;
}

const running = (ctx: KeyContext): boolean => ctx.row?.loop !== undefined && ctx.row.loop.status !== 'failed';
const needsRow = (ctx: KeyContext): string | undefined => (ctx.row ? undefined : 'no module selected');

/**
 * THE command table of the dashboard: its footer, its `?` overlay and the
 * README's key list all come from here.
 */
export const COMMANDS: readonly Command[] = [
  { id: 'up', keys: ['up', 'k'], description: 'Move the selection up', label: 'up', group: 'move' },
  { id: 'down', keys: ['down', 'j'], description: 'Move the selection down', label: 'down', group: 'move' },
  {
    id: 'start', keys: ['s'], description: 'Start a loop on the selected module (asks for maxIterations and timeout)', label: 'start', group: 'loops',
    disabled: (ctx) => needsRow(ctx) ?? (running(ctx) ? 'a loop already runs here' : undefined),
  },
  {
    id: 'stop', keys: ['x'], description: 'Stop the selected loop after its current step (writes the stop file)', label: 'stop', group: 'loops', dangerous: true,
    disabled: (ctx) => needsRow(ctx) ?? (running(ctx) ? undefined : 'no loop runs here'),
  },
  {
    id: 'forceStop', keys: ['X'], description: 'Kill the selected loop\'s agent at once (force stop)', label: 'kill', group: 'loops', dangerous: true,
    disabled: (ctx) => needsRow(ctx) ?? (running(ctx) ? undefined : 'no loop runs here'),
  },
  {
    id: 'attach', keys: ['return'], description: 'Attach the terminal to the selected agent (the detach key comes back)', label: 'attach', group: 'loops',
    disabled: (ctx) => needsRow(ctx) ?? (ctx.row?.here && running(ctx) ? undefined : 'no agent of this process runs here'),
  },
  {
    id: 'restart', keys: ['r'], description: 'Start a failed loop again', label: 'restart', group: 'loops',
    disabled: (ctx) => needsRow(ctx) ?? (ctx.row?.loop?.status === 'failed' ? undefined : 'only a failed loop restarts'),
  },
  { id: 'log', keys: ['l'], description: 'Show the event log', label: 'log', group: 'views' },
  {
    id: 'history', keys: ['h'], description: 'Show the selected module\'s finished runs: outcome, iterations, active time, score', label: 'runs', group: 'views',
    disabled: needsRow,
  },
  { id: 'filter', keys: ['/'], description: 'Filter the modules by name', label: 'filter', group: 'views' },
  { id: 'detail', keys: ['d'], description: 'Show or hide the detail pane (agent screen, events, summary)', label: 'detail', group: 'views' },
  { id: 'help', keys: ['?'], description: 'Show all keys', label: 'help', group: 'app' },
  { id: 'quit', keys: ['q', 'ctrl-c'], description: 'Quit (asks first while loops run: pty loops are suspended, tmux loops keep running)', label: 'quit', group: 'app' },
];

/** Keys inside the dialogs and views, for the help overlay. */
export const DIALOG_KEYS: readonly { keys: string; description: string }[] = [
  { keys: 'Tab / Shift-Tab / ↑ ↓', description: 'Move between the start dialog\'s fields' },
  { keys: 'digits, Backspace, ← →', description: 'Edit a field' },
  { keys: 'Enter', description: 'Confirm: start, stop, apply the filter' },
  { keys: 'Esc', description: 'Cancel, or close a view' },
  { keys: 'y / n', description: 'Answer a confirmation' },
];

/** What the glyphs of the state column mean. */
export const STATE_LEGEND = '▶ running  ○ starting  ! stalled  ‖ quota wait (elapsed paused)  ■ stopping  ✗ failed  ✓ complete  · no loop  ↗ run by another autodeck  ? owner gone';

/** The command a key runs, if any. */
export function commandForKey(key: string): Command | undefined {
  return COMMANDS.find((c) => c.keys.includes(key));
}

/** How a key name reads on screen. */
export function keyLabel(key: string): string {
  return ({ up: '↑', down: '↓', return: 'Enter', escape: 'Esc', 'ctrl-c': 'Ctrl-C' } as Record<string, string>)[key] ?? key;
}

/** The README's key list, generated from the table. */
export function keyListMarkdown(): string {
  return ['| keys | what it does |', '|---|---|', ...COMMANDS.map((c) => `| ${c.keys.map((k) => `\`${keyLabel(k)}\``).join(' / ')} | ${c.description} |`)].join('\n');
}
