import type { Dialog, DialogAnswer } from '../agents/dialogs.js';
import type { EventKind } from '../store/events.js';
import type { WaitingFor } from '../store/loops.js';

/**
 * Dialogs as decisions, not stalls: Claude Code's own (src/agents/dialogs.ts: the option
 * that keeps things as they are, by its label, or left to a person with the dialog's
 * words) and those a profile's rules answer at once (a menu that only hides the prompt,
 * Codex's switch-model menu, Gemini CLI's sign-in with the key from the environment). The
 * first beat that sees one gives its answer; one still there `retryBeats` unchanged beats
 * later is answered again, a few times, then left to a person (the loop "needs you").
 * Nothing here counts as a stall or spends the recovery budget.
 */

export interface DialogHost {
  /** Wall time, for what is stored (`since`). */
  wall(): number;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  sendKeys(keys: readonly string[]): void;
  setWaiting(waiting: WaitingFor | null): void;
}

/** A dialog on screen, as this module handles it. */
export interface ShownDialog {
  /** Tells one dialog from another (with the screen's hash). */
  id: string;
  /** The writes that answer it; absent: a person must. */
  keys?: readonly string[] | undefined;
  /** The `dialog` event's fields: what it was and what was chosen. */
  answered: Record<string, unknown>;
  /** The line a person reads when it is left to them. */
  ask: string;
  /** When its answers did not take. */
  notTaken: string;
  /** More for the `needs_you` event. */
  needsYou?: Record<string, unknown>;
}

const keysText = (keys: readonly string[]): string => keys.map((k) => JSON.stringify(k).slice(1, -1)).join(' ');

/** One of Claude Code's dialogs. */
export function claudeDialog(d: Dialog): ShownDialog {
  const ask = `Claude Code asks: ${d.text}`.slice(0, 200);
  return {
    id: d.id, keys: d.keys, ask, notTaken: ask, needsYou: { dialog: d.id },
    answered: { dialog: d.id, text: d.text, choice: d.choice, ...(d.keys ? { keys: keysText(d.keys) } : {}) },
  };
}

/** A dialog a profile's rules answer at once. */
export function profileDialog(a: DialogAnswer): ShownDialog {
  return { id: `profile:${a.name}`, keys: a.keys, ask: `the ${a.name} asks`, notTaken: `the ${a.name} did not take its answer`, answered: { name: a.name, keys: keysText(a.keys) } };
}

/** How many times one dialog is answered before it is left to a person. */
export const MAX_DIALOG_TRIES = 3;

interface Current {
  key: string;
  dialog: ShownDialog;
  beats: number;
  tries: number;
  asking: boolean;
}

export class DialogAnswers {
  private current: Current | undefined;

  constructor(private readonly host: DialogHost, private readonly retryBeats: number) {}

  /** A beat that shows a dialog (its screen hashed to `hash`); always handled. */
  onDialog(dialog: ShownDialog, hash: string): true {
    const key = `${dialog.id}|${hash}`;
    const cur = this.current;
    if (cur && cur.key === key) {
      if (cur.asking || ++cur.beats < this.retryBeats) return true;
      cur.beats = 0;
      if (++cur.tries > MAX_DIALOG_TRIES) this.ask(cur, 'answer_not_taken');
      else this.answer(cur);
      return true;
    }
    this.onOther();
    const next: Current = { key, dialog, beats: 0, tries: 1, asking: false };
    this.current = next;
    if (dialog.keys) this.answer(next);
    else this.ask(next, 'question');
    return true;
  }

  /** A beat without one: a person's answer (or ours) took it away. */
  onOther(): void {
    if (this.current?.asking) this.host.setWaiting(null);
    this.current = undefined;
  }

  private answer(cur: Current): void {
    this.host.event('dialog', { ...cur.dialog.answered, ...(cur.tries > 1 ? { retry: cur.tries } : {}) });
    this.host.sendKeys(cur.dialog.keys!);
  }

  private ask(cur: Current, reason: 'question' | 'answer_not_taken'): void {
    cur.asking = true;
    const text = reason === 'question' ? cur.dialog.ask : cur.dialog.notTaken;
    this.host.setWaiting({ reason, text, since: new Date(this.host.wall()).toISOString() });
    this.host.event('needs_you', { reason, text, ...cur.dialog.needsYou, ...(reason === 'answer_not_taken' ? { tries: MAX_DIALOG_TRIES } : {}) });
  }
}
