import { describe, expect, it } from 'vitest';
import { DialogAnswers, MAX_DIALOG_TRIES, claudeDialog, profileDialog, type DialogHost } from '../../src/supervisor/dialogAnswers.js';
import type { WaitingFor } from '../../src/store/loops.js';

// Dialogs answered as decisions, by beats (no timers): a profile's dialog answered at once,
// again after `retryBeats` unchanged beats, then left to a person; a Claude Code dialog
// without an answer autodeck may give is a person's from the start.

function rig(retryBeats = 2) {
  const events: { kind: string; detail: Record<string, unknown> }[] = [];
  const sent: string[][] = [];
  let waiting: WaitingFor | null = null;
  const host: DialogHost = { wall: () => 0, event: (kind, detail) => events.push({ kind, detail }), sendKeys: (k) => sent.push([...k]), setWaiting: (w) => { waiting = w; } };
  return { answers: new DialogAnswers(host, retryBeats), events, sent, waiting: () => waiting };
}

describe('dialog answers', () => {
  it('a profile\'s dialog: answered at once, again after the beats, then left to a person once', () => {
    const r = rig(2);
    const d = profileDialog({ name: 'switch-model menu', keys: ['\x1b'], when: 'now' });
    r.answers.onDialog(d, 'h1');
    expect(r.sent).toEqual([['\x1b']]);
    expect(r.events[0]).toEqual({ kind: 'dialog', detail: { name: 'switch-model menu', keys: '\\u001b' } });
    for (let beat = 0; beat < 2 * MAX_DIALOG_TRIES + 4; beat++) r.answers.onDialog(d, 'h1');
    expect(r.sent).toHaveLength(MAX_DIALOG_TRIES);
    expect(r.events.filter((e) => e.kind === 'dialog').map((e) => e.detail.retry)).toEqual([undefined, 2, 3]);
    expect(r.events.filter((e) => e.kind === 'needs_you')).toEqual([{ kind: 'needs_you', detail: { reason: 'answer_not_taken', text: 'the switch-model menu did not take its answer', tries: MAX_DIALOG_TRIES } }]);
    expect(r.waiting()).toMatchObject({ reason: 'answer_not_taken' });
    // gone: the person (or a late answer) took it away
    r.answers.onOther();
    expect(r.waiting()).toBeNull();
    // another screen of it is a new dialog: answered at once
    r.answers.onDialog(d, 'h2');
    expect(r.sent).toHaveLength(MAX_DIALOG_TRIES + 1);
  });

  it('a Claude Code dialog with no answer autodeck may give: a person\'s, with its words, nothing typed', () => {
    const r = rig();
    r.answers.onDialog(claudeDialog({ id: 'api-key', text: 'Do you want to use this API key?' }), 'h');
    r.answers.onDialog(claudeDialog({ id: 'api-key', text: 'Do you want to use this API key?' }), 'h');
    expect(r.sent).toEqual([]);
    expect(r.events).toEqual([{ kind: 'needs_you', detail: { reason: 'question', text: 'Claude Code asks: Do you want to use this API key?', dialog: 'api-key' } }]);
  });
});
