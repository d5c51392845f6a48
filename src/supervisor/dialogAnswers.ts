import type { Dialog } from '../agents/dialogs.js';
import type { EventKind } from '../store/events.js';
import type { WaitingFor } from '../store/loops.js';

/**
 * Claude Code's own dialogs as decisions, not stalls: the first beat that sees one gives
 * the answer src/agents/dialogs.ts allows (the option that keeps things as they are, by its
 * label) or leaves it to a person ("needs you", with the dialog's words). A dialog still
 * there `retryBeats` unchanged beats after its answer is answered again, a few times, then
 * left to a person. Nothing here counts as a stall or spends the recovery budget. A
 * profile's dialog rules (Codex CLI, Gemini CLI): profileDialogAnswers.ts.
 */

export interface DialogHost {
  /** Wall time, for what is stored (`since`). */
  wall(): number;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  sendKeys(keys: readonly string[]): void;
  setWaiting(waiting: WaitingFor | null): void;
}

/** How many times one dialog is answered before it is left to a person. */
export const MAX_DIALOG_TRIES = 3;

interface Current {
  key: string;
  dialog: Dialog;
  beats: number;
  tries: number;
  asking: boolean;
}

export class DialogAnswers {
  private current: Current | undefined;

  constructor(private readonly host: DialogHost, private readonly retryBeats: number) {}

  /** A beat that shows a dialog of the table (its screen hashed to `hash`); always handled. */
  onDialog(dialog: Dialog, hash: string): true {
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
    const { dialog } = cur;
    this.host.event('dialog', {
      dialog: dialog.id, text: dialog.text, choice: dialog.choice, keys: dialog.keys!.map((k) => JSON.stringify(k).slice(1, -1)).join(' '),
      ...(cur.tries > 1 ? { retry: cur.tries } : {}),
    });
    this.host.sendKeys(dialog.keys!);
  }

  private ask(cur: Current, reason: 'question' | 'answer_not_taken'): void {
    cur.asking = true;
    const text = `Claude Code asks: ${cur.dialog.text}`.slice(0, 200);
    this.host.setWaiting({ reason, text, since: new Date(this.host.wall()).toISOString() });
    this.host.event('needs_you', { reason, text, dialog: cur.dialog.id, ...(reason === 'answer_not_taken' ? { tries: MAX_DIALOG_TRIES } : {}) });
  }
}
