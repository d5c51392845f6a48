import { COMMANDS, detachKeyLabel, keyLabel, type CommandId, type KeyContext } from '../keymap.js';
import type { Breakpoint } from './layout.js';

export interface FooterItem {
  id: CommandId;
  text: string;
  /** Cannot run on the selected row: drawn dimmed (or struck through without colour). */
  off: boolean;
}

/** Commands a narrow footer leaves to the help overlay: moving is known, the rest is one `?` away. */
const NARROW_HIDDEN = new Set<CommandId>(['up', 'down', 'log', 'history', 'filter', 'forceStop']);
/** Commands for Claude Code's own sessions: in the footer only while one is selected. */
const CLAUDE_ONLY = new Set<CommandId>(['answer', 'prompt']);
/**
 * What goes first when the footer is too long (`back`: the way back from attach, which `?`
 * still names); `? help` and `q quit` stay, whatever the width.
 */
const DROP_ORDER: readonly (CommandId | 'back')[] = ['history', 'filter', 'log', 'forceStop', 'prompt', 'back', 'restart', 'up', 'detail', 'start', 'stop', 'attach'];
const GAP = 2;

const lengthOf = (items: readonly FooterItem[]): number => items.reduce((n, i, k) => n + [...i.text].length + (k > 0 ? GAP : 0), 0);

/**
 * The footer's items at `width` columns: every command's key and short label from the
 * command table, the attach one naming the way back (`Enter attach (Ctrl-Q back)`).
 * Narrow, the commands a person finds in `?` are left out, and those that cannot run on
 * the selected row; too long still, the least used go (the way back is then said in `?`
 * only), so `? help` and `q quit` are always there. Pure.
 */
export function footerItems(ctx: KeyContext, breakpoint: Breakpoint, width: number, detachKey: string): FooterItem[] {
  const items = COMMANDS.filter((c) => c.id !== 'down' && (ctx.row?.claude !== undefined || !CLAUDE_ONLY.has(c.id))).filter((c) => breakpoint === 'wide' || !NARROW_HIDDEN.has(c.id)).map((c): FooterItem => {
    const keys = c.id === 'up' ? '↑↓' : keyLabel(c.keys[0]!);
    const label = c.id === 'up' ? 'move' : c.id === 'attach' ? `attach (${detachKeyLabel(detachKey)} back)` : c.label;
    return { id: c.id, text: `${keys} ${label}`, off: c.disabled?.(ctx) !== undefined };
  }).filter((i) => breakpoint !== 'side' || !i.off);
  for (const id of DROP_ORDER) {
    if (lengthOf(items) <= width) break;
    const at = items.findIndex((i) => i.id === (id === 'back' ? 'attach' : id));
    if (at < 0) continue;
    if (id === 'back') items[at] = { ...items[at]!, text: `${keyLabel('return')} attach` };
    else items.splice(at, 1);
  }
  return items;
}
