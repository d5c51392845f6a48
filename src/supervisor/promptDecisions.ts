import type { Classification } from '../agents/classify.js';
import type { DialogConsent } from '../agents/dialogs.js';
import type { Profile } from '../agents/profiles.js';
import type { ApprovalPolicy, ApprovalRequest, PolicyContext } from '../policy/rules.js';
import type { EventKind } from '../store/events.js';
import type { WaitingFor } from '../store/loops.js';
import { Approvals } from './approvals.js';
import { DialogAnswers, claudeDialog, profileDialog } from './dialogAnswers.js';
import { within } from './loopBoundary.js';
import type { Look } from './screenLook.js';

/** The approval policy of a loop and where its project is. */
export interface ApprovalSetup {
  policy: ApprovalPolicy;
  context: PolicyContext;
  /** What the user allowed autodeck to accept in the agent's own dialogs. */
  consent?: DialogConsent | undefined;
}

/** What deciding the agent's prompts needs of the watchdog. */
export interface PromptHost {
  now(): number;
  wall(): number;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  waitingFor(): WaitingFor | null | undefined;
  setWaiting(w: WaitingFor | null): void;
  sendKeys(keys: readonly string[]): void;
}

/**
 * What the agent asks, decided before the stall logic: Claude Code's own dialogs and the
 * dialogs the profile's rules answer at once (dialogAnswers.ts), a question left to a
 * person, and permission prompts by the approval policy (approvals.ts).
 */
export class PromptDecisions {
  /** Permission prompts as decisions; undefined in tests that predate it. */
  private readonly approvals: Approvals | undefined;
  /** Claude Code's own dialogs as decisions; only for its profile. */
  private readonly claudeDialogs: DialogAnswers | undefined;
  readonly consent: DialogConsent | undefined;
  private readonly profileDialogs: DialogAnswers;

  constructor(private readonly host: PromptHost, profile: Profile, stallThreshold: number, approval?: ApprovalSetup) {
    const dialogHost = {
      wall: () => host.wall(),
      event: (kind: EventKind, detail: Record<string, unknown>) => host.event(kind, detail),
      sendKeys: (keys: readonly string[]) => host.sendKeys(keys),
      setWaiting: (w: WaitingFor | null) => host.setWaiting(w),
    };
    if (profile.name === 'claude') {
      this.consent = approval?.consent ?? {};
      this.claudeDialogs = new DialogAnswers(dialogHost, Math.max(1, stallThreshold));
    }
    this.profileDialogs = new DialogAnswers(dialogHost, Math.max(1, stallThreshold));
    if (approval) {
      this.approvals = new Approvals({
        now: () => host.now(),
        wall: () => host.wall(),
        event: (kind, detail) => host.event(kind, detail),
        sendKeys: (keys) => host.sendKeys(keys),
        typeLine: (text) => host.sendKeys([text, '\r']),
        setWaiting: (w) => host.setWaiting(w),
      }, profile.name, approval.policy, approval.context, Math.max(1, stallThreshold));
    }
  }

  /** Whether permission prompts are decided at all (a loop with an approval policy). */
  get deciding(): boolean {
    return this.approvals !== undefined;
  }

  /** A refusal waits to be told to the agent at its next idle screen. */
  get telling(): boolean {
    return this.approvals?.telling === true;
  }

  /**
   * True when this screen was a decision (an answer typed, or a prompt being decided):
   * progress, not a stall. `asked` reads, only at a permission prompt, what the agent's
   * hook or record says it asks for, and whether its hook may yet report the prompt.
   */
  decide(look: Look, hash: string, asked: () => { hook: ApprovalRequest | undefined; hookPending: boolean }): boolean {
    const kind: Classification['kind'] = look.classification.kind;
    if (this.claudeDialogs && look.dialog) return this.claudeDialogs.onDialog(claudeDialog(look.dialog), hash);
    this.claudeDialogs?.onOther();
    const dialog = look.classification.dialog;
    if (dialog?.when === 'now') return this.profileDialogs.onDialog(profileDialog(dialog), hash);
    this.profileDialogs.onOther();
    if (kind === 'question' && this.host.waitingFor()?.reason !== 'question') {
      const text = look.question ?? 'a question';
      this.host.setWaiting({ reason: 'question', text, since: new Date(this.host.wall()).toISOString() });
      this.host.event('needs_you', { reason: 'question', text });
    } else if (kind !== 'question' && this.host.waitingFor()?.reason === 'question') {
      this.host.setWaiting(null);
    }
    const approvals = this.approvals;
    if (!approvals) return false;
    return within('approval', () => kind === 'permission_prompt'
      ? approvals.onPrompt({ hash, screen: look.request, yesKeys: look.answer, question: look.question, ...asked() })
      : approvals.onOther(kind));
  }
}
