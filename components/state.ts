import type { DeckRow } from '../src/deck/deck.js';
import { LOCAL_HOST_CELL } from '../src/deck/cells.js';

/** What owns the keyboard besides the table: one at a time (STYLE 8, 13). */
export type Overlay =
  | { kind: 'none' }
  | { kind: 'start'; key: string }
  | { kind: 'confirm'; action: 'stop' | 'forceStop'; key: string }
  | { kind: 'quit' }
  | { kind: 'help' }
  | { kind: 'log' }
  | { kind: 'history'; key: string }
  | { kind: 'filter' }
  /** A Claude Code session's open request, and a prompt for its next turn. */
  | { kind: 'answer'; key: string }
  | { kind: 'prompt'; key: string };

export interface Message {
  text: string;
  tone: 'info' | 'error';
}

/** The dashboard's own state; kept across an attach, so coming back finds things as they were. */
export interface UiState {
  selectedKey: string | undefined;
  filter: string;
  /** undefined: the default for the width (shown unless in a side pane). */
  detail: boolean | undefined;
  overlay: Overlay;
  message: Message | undefined;
}

export const INITIAL_UI: UiState = { selectedKey: undefined, filter: '', detail: undefined, overlay: { kind: 'none' }, message: undefined };

export type UiAction =
  | { type: 'select'; key: string | undefined }
  | { type: 'open'; overlay: Overlay }
  | { type: 'close' }
  | { type: 'filter'; text: string }
  /** What the filter line holds as it is typed: only while it is open (a late change after Esc is not a filter). */
  | { type: 'filterTyped'; text: string }
  | { type: 'toggleDetail'; shownNow: boolean }
  | { type: 'message'; message: Message | undefined };

export function uiReducer(state: UiState, action: UiAction): UiState {
  switch (action.type) {
    case 'select':
      return { ...state, selectedKey: action.key };
    case 'open':
      return { ...state, overlay: action.overlay, message: undefined };
    case 'close':
      return { ...state, overlay: { kind: 'none' } };
    case 'filter':
      return { ...state, filter: action.text };
    case 'filterTyped':
      return state.overlay.kind === 'filter' ? { ...state, filter: action.text } : state;
    case 'toggleDetail':
      return { ...state, detail: !action.shownNow };
    case 'message':
      return { ...state, message: action.message };
  }
}

/**
 * The rows the filter lets through: a case-insensitive part of the name; a word `@NAME`
 * keeps the rows of the hosts whose name begins so (`@gpu`, `@local`).
 */
export function filterRows(rows: readonly DeckRow[], filter: string): readonly DeckRow[] {
  const f = filter.trim().toLowerCase();
  if (f === '') return rows;
  const hosts = f.split(/\s+/).filter((w) => w.startsWith('@') && w.length > 1).map((w) => w.slice(1));
  const name = hosts.length === 0 ? f : f.split(/\s+/).filter((w) => !w.startsWith('@')).join(' ');
  return rows.filter((r) => (hosts.length === 0 || hosts.some((h) => (r.host ?? LOCAL_HOST_CELL).toLowerCase().startsWith(h)))
    && (name === '' || r.name.toLowerCase().includes(name)));
}

/** The selected row's index among `rows`: the selected key, else the first row. */
export function selectedIndex(rows: readonly DeckRow[], key: string | undefined): number {
  if (rows.length === 0) return -1;
  const i = key === undefined ? -1 : rows.findIndex((r) => r.key === key);
  return i >= 0 ? i : 0;
}

/** Ink's key object as the command table names keys. */
export function keyName(input: string, key: { upArrow: boolean; downArrow: boolean; return: boolean; escape: boolean; tab: boolean; shift: boolean; ctrl: boolean }): string {
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.return) return 'return';
  if (key.escape) return 'escape';
  if (key.tab) return key.shift ? 'shift-tab' : 'tab';
  if (key.ctrl && input) return `ctrl-${input}`;
  return input;
}
