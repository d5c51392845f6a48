import type { DeckRow } from './deck/deck.js';

/** What decides whether a command can run now. */
export interface KeyContext {
  /** The selected row, if any. */
  row?: DeckRow | undefined;
}

export type CommandId =
  | 'up' | 'down' | 'start' | 'stop' | 'forceStop' | 'attach' | 'restart' | 'answer' | 'prompt' | 'log' | 'history' | 'filter' | 'detail' | 'help' | 'quit';

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

/** Stands for the detach key (a setting) in a description: keyDescription puts the key in. */
const DETACH = '{detach}';

const running = (ctx: KeyContext): boolean => ctx.row?.loop !== undefined && ctx.row.loop.status !== 'failed';
const needsRow = (ctx: KeyContext): string | undefined => (ctx.row ? undefined : 'no module selected');
/** A module's row, live: not a host's own row (src/hosts/), nor a loop last seen on a host that does not answer. */
const needsModule = (ctx: KeyContext): string | undefined => needsRow(ctx)
  ?? (ctx.row?.hostIssue ? 'this row is a host: select one of its modules' : undefined)
  ?? (ctx.row?.staleFor !== undefined ? `${ctx.row.host ?? 'the host'} does not answer: this is what it last said` : undefined);
/** Attach works for an agent of this process, or one in tmux on another host (over ssh). */
const attachable = (ctx: KeyContext): string | undefined => {
  if (ctx.row?.host === undefined) return ctx.row?.here && running(ctx) ? undefined : 'no agent of this process runs here';
  if (!running(ctx)) return 'no loop runs there';
  return ctx.row.loop?.backend === 'tmux' ? undefined : `its agent runs in a pseudo-terminal of the autodeck on ${ctx.row.host}: attach there`;
};
/** On a Claude Code session's row: why a command that needs a running background session cannot run. */
function claudeBackground(ctx: KeyContext): string | undefined {
  const c = ctx.row?.claude;
  if (!c) return 'not a Claude Code session';
  if (!c.session.id) return 'an interactive session runs in its own terminal';
  return c.view.live ? undefined : `it is ${c.view.word}`;
}

/**
 * THE command table of the dashboard: its footer, its `?` overlay and the
 * README's key list all come from here.
 */
export const COMMANDS: readonly Command[] = [
  { id: 'up', keys: ['up', 'k'], description: 'Move the selection up', label: 'up', group: 'move' },
  { id: 'down', keys: ['down', 'j'], description: 'Move the selection down', label: 'down', group: 'move' },
  {
    id: 'start', keys: ['s'], description: 'Start a loop on the selected module (asks for limits); a Claude Code session: adopt it', label: 'start', group: 'loops',
    disabled: (ctx) => needsModule(ctx) ?? (ctx.row?.claude
      ? claudeBackground(ctx) ?? (ctx.row.claude.adopted ? 'adopted already' : undefined)
      : running(ctx) ? 'a loop already runs here' : undefined),
  },
  {
    id: 'stop', keys: ['x'], description: 'Stop the selected loop after its current step (stop file); a Claude Code session: claude stop', label: 'stop', group: 'loops', dangerous: true,
    disabled: (ctx) => needsModule(ctx) ?? (ctx.row?.claude ? claudeBackground(ctx) : running(ctx) ? undefined : 'no loop runs here'),
  },
  {
    id: 'forceStop', keys: ['X'], description: 'Kill the selected loop\'s agent at once (force stop)', label: 'kill', group: 'loops', dangerous: true,
    disabled: (ctx) => needsModule(ctx) ?? (ctx.row?.claude ? 'a Claude Code session stops with x' : running(ctx) ? undefined : 'no loop runs here'),
  },
  {
    id: 'attach', keys: ['return'], description: `Attach to the selected agent or Claude Code session; ${DETACH} comes back to the dashboard`, label: 'attach', group: 'loops',
    disabled: (ctx) => needsModule(ctx) ?? (ctx.row?.claude ? claudeBackground(ctx) : attachable(ctx)),
  },
  {
    id: 'answer', keys: ['a'], description: 'Answer the selected Claude Code session\'s permission request or question', label: 'answer', group: 'loops',
    disabled: (ctx) => needsRow(ctx) ?? (!ctx.row?.claude ? 'not a Claude Code session'
      : ctx.row.claude.request ? undefined
        : ctx.row.claude.view.phase === 'needs_you' ? 'its dialog is not held by autodeck\'s hook (autodeck init in its project): attach to answer' : 'nothing to answer'),
  },
  {
    id: 'prompt', keys: ['p'], description: 'Send the selected Claude Code session a prompt, under its own id (refused while busy)', label: 'prompt', group: 'loops',
    disabled: (ctx) => needsRow(ctx) ?? (!ctx.row?.claude ? 'not a Claude Code session' : !ctx.row.claude.session.id ? 'an interactive session runs in its own terminal'
      : ctx.row.claude.session.status === 'busy' ? 'it is busy with a turn' : ctx.row.claude.session.status === 'waiting' ? 'it waits on a person: answer first' : undefined),
  },
  {
    id: 'restart', keys: ['r'], description: 'Start a failed loop again', label: 'restart', group: 'loops',
    disabled: (ctx) => needsModule(ctx) ?? (ctx.row?.loop?.status === 'failed' ? undefined : 'only a failed loop restarts'),
  },
  { id: 'log', keys: ['l'], description: 'Show the event log', label: 'log', group: 'views' },
  {
    id: 'history', keys: ['h'], description: 'Show the selected module\'s finished runs: outcome, iterations, active time, score', label: 'runs', group: 'views',
    disabled: (ctx) => needsRow(ctx) ?? (ctx.row?.hostIssue ? 'this row is a host: select one of its modules' : undefined),
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

/** The marks a row may carry besides its state, for the help overlay and the README. */
export const ROW_MARKS: readonly { mark: string; description: string }[] = [
  { mark: '↗ name', description: 'a loop another autodeck runs (on a module outside the roots, or its own)' },
  { mark: '✻ name', description: 'a session Claude Code runs by itself (claude --bg, or in a terminal): attach, answer (a), prompt (p), stop (x), adopt (s)' },
  { mark: 'word?', description: 'a state ending in "?" (running?): the autodeck that ran the loop is gone; the next one to start adopts it' },
];

/** The command a key runs, if any. */
export function commandForKey(key: string): Command | undefined {
  return COMMANDS.find((c) => c.keys.includes(key));
}

/** `ctrl-q` as a person reads it: `Ctrl-Q`. */
export function detachKeyLabel(detachKey: string): string {
  return detachKey.replace(/^ctrl-(.)$/, (_, c: string) => `Ctrl-${c.toUpperCase()}`);
}

/** A command's description with the detach key in it (the setting's value, Ctrl-Q by default). */
export function keyDescription(c: Command, detachKey = 'ctrl-q'): string {
  return c.description.replace(DETACH, detachKeyLabel(detachKey));
}

/** How a key name reads on screen. */
export function keyLabel(key: string): string {
  return ({ up: '↑', down: '↓', return: 'Enter', escape: 'Esc', 'ctrl-c': 'Ctrl-C' } as Record<string, string>)[key] ?? key;
}

/** The README's key list, generated from the table. */
export function keyListMarkdown(): string {
  return ['| keys | what it does |', '|---|---|', ...COMMANDS.map((c) => `| ${c.keys.map((k) => `\`${keyLabel(k)}\``).join(' / ')} | ${keyDescription(c)} |`)].join('\n');
}
