import type { DialogAnswer } from '../agents/dialogs.js';
import type { EventKind } from '../store/events.js';
import type { WaitingFor } from '../store/loops.js';

/**
 * Dialogs a profile answers at once by its dialog rules (src/agents/dialogs.ts: a menu that
 * only hides the prompt, Codex's switch-model menu, Gemini CLI's sign-in with the key from
 * the environment): answered when first seen, not as a stall. A dialog still there after
 * `retryBeats` unchanged beats gets the same answer again, a few times, then is left to a
 * person (the loop "needs you"). Claude Code's own dialogs: dialogAnswers.ts.
 */

export interface DialogHost {
  wall(): number;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  sendKeys(keys: readonly string[]): void;
  setWaiting(waiting: WaitingFor | null): void;
}

/** How many times one dialog screen is answered before it is left to a person. */
export const DIALOG_TRIES = 3;

export class ProfileDialogAnswers {
  private hash: string | undefined;
  private tries = 0;
  private beats = 0;
  private asking = false;

  constructor(private readonly host: DialogHost, private readonly retryBeats: number) {}

  /** A beat that shows a dialog answered at once; true: handled here (progress, not a stall). */
  onDialog(answer: DialogAnswer, hash: string): boolean {
    if (hash !== this.hash) {
      this.hash = hash;
      this.tries = 0;
      this.beats = 0;
    } else if (++this.beats < this.retryBeats) {
      return true;
    } else {
      this.beats = 0;
    }
    if (this.tries >= DIALOG_TRIES) {
      if (!this.asking) {
        this.asking = true;
        const text = `the ${answer.name} did not take its answer`;
        this.host.setWaiting({ reason: 'answer_not_taken', text, since: new Date(this.host.wall()).toISOString() });
        this.host.event('needs_you', { reason: 'answer_not_taken', text, tries: DIALOG_TRIES });
      }
      return true;
    }
    this.tries++;
    this.host.event('dialog', { name: answer.name, keys: answer.keys.map((k) => JSON.stringify(k).slice(1, -1)).join(' '), ...(this.tries > 1 ? { retry: this.tries } : {}) });
    this.host.sendKeys(answer.keys);
    return true;
  }

  /** A beat without such a dialog. */
  onOther(): void {
    if (this.asking) this.host.setWaiting(null);
    this.asking = false;
    this.hash = undefined;
  }
}
