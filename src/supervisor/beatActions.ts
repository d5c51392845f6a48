import type { StopReason } from '../protocol/stopFile.js';
import type { Session } from '../sessions/session.js';
import type { EventKind } from '../store/events.js';
import type { BeatAction, BeatState, QuotaWait } from './heartbeat.js';
import type { DecisionSource } from './hung.js';
import type { QuotaWaits } from './quotaWaits.js';
import { showKeys, unknownCommandMessage, type Look } from './screenLook.js';

/** What carrying out a heartbeat's decision needs of the watchdog. */
export interface BeatActor {
  event(kind: EventKind, detail: Record<string, unknown>): void;
  fail(message: string, code: string): void;
  requestStop(reason: StopReason): void;
  /** The state after the decision (its recovery step, its quota wait). */
  state(): BeatState;
  /** The screen the decision was made on. */
  lastLook(): Look | undefined;
  wallOf(mono: number): number;
  quotaWaits: Pick<QuotaWaits, 'enter' | 'finish'>;
  sendKeys(session: Session, keys: readonly string[]): void;
  typeContinuation(session: Session): void;
}

/**
 * Carries out what the pure decider (heartbeat.ts) decided at one beat: keys typed,
 * events written, quota waits begun and ended, the loop failed or stopped.
 */
export function carryOut(
  actor: BeatActor, action: BeatAction, kind: string, session: Session, source: DecisionSource, endedWait?: QuotaWait,
): void {
  const state = actor.state();
  switch (action.type) {
    case 'none':
      return;
    case 'unknown_command':
      actor.event('stall', { kind, source, command: action.command, unknownCommand: true });
      actor.fail(unknownCommandMessage(action.command), 'unknown_command');
      return;
    case 'enter_quota':
      actor.quotaWaits.enter(action.wait, action.keys, session);
      return;
    case 'quota_probe': {
      // a quota dialog of the agent's own is asked to try again (Gemini CLI's "Keep trying"); else the continuation
      const retry = quotaRetryKeys(actor.lastLook());
      actor.event('quota_wait', { probe: true, nextProbeAt: new Date(actor.wallOf(state.quota!.nextProbeAt)).toISOString(), ...(retry ? { keys: showKeys(retry.keys), dialog: retry.name } : {}) });
      if (retry) actor.sendKeys(session, retry.keys);
      else actor.typeContinuation(session);
      return;
    }
    case 'quota_resume': {
      const retry = action.typeContinuation ? quotaRetryKeys(actor.lastLook()) : undefined;
      actor.quotaWaits.finish(action.why, action.typeContinuation && !retry ? session : undefined, endedWait);
      if (retry) actor.sendKeys(session, retry.keys);
      return;
    }
    case 'recover': {
      const keys = action.keys === 'continuation' ? ['continuation message', 'Enter'] : action.keys;
      actor.event('stall', { kind, source, stepTimeout: action.stepTimeout });
      actor.event('recovery', {
        kind, source, keys: action.keys === 'continuation' ? keys.join(' + ') : showKeys(keys),
        recoveryStep: state.recoveryStep, recoveryTotal: state.recoveryTotal,
      });
      if (action.keys === 'continuation') actor.typeContinuation(session);
      else actor.sendKeys(session, action.keys);
      return;
    }
    case 'unrecognized':
      actor.event('stall_unrecognized', {
        kind, source, stepTimeout: action.stepTimeout, recoveryStep: state.recoveryStep, recoveryTotal: state.recoveryTotal,
      });
      return;
    case 'stall_limit':
      actor.event('stall', {
        kind, source, limit: true, recoveryStep: state.recoveryStep, recoveryTotal: state.recoveryTotal,
      });
      actor.requestStop('stall_limit');
      return;
  }
}

/** The keys of the quota dialog on screen that tries again, when the profile has one. */
function quotaRetryKeys(look: Look | undefined): { name: string; keys: string[] } | undefined {
  const dialog = look?.classification.dialog;
  return dialog?.when === 'probe' ? { name: dialog.name, keys: dialog.keys } : undefined;
}
