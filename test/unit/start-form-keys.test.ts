import { describe, expect, it } from 'vitest';
import { initialStartForm, startFormKey, type FormKey, type StartForm } from '../../src/deck/startFormKeys.js';

// The start dialog's keys, one after another on the form each left: what a run of keys
// read at once (key repeat, a paste, ssh) does without any rendering in between.

type Press = string | FormKey;
const TAB: FormKey = { tab: true };
const SHIFT_TAB: FormKey = { tab: true, shift: true };
const BACKSPACE: FormKey = { backspace: true };
const ENTER: FormKey = { return: true };

function press(form: StartForm, ...keys: Press[]) {
  let effect: ReturnType<typeof startFormKey>['effect'] = { kind: 'none' };
  for (const k of keys) ({ form, effect } = typeof k === 'string' ? startFormKey(form, k, {}) : startFormKey(form, '', k));
  return { form, effect };
}

const fresh = (worktree = false) => initialStartForm({ maxIterations: '20', timeoutMinutes: '30' }, worktree);

describe('the start form, key by key', () => {
  it('two Backspaces, a digit, Tab, a Backspace, a digit and Enter: both fields edited, the start asked with them', () => {
    const { form, effect } = press(fresh(), BACKSPACE, BACKSPACE, '3', TAB, BACKSPACE, '5', ENTER);
    expect(form.values).toEqual({ maxIterations: '3', timeoutMinutes: '35' });
    expect(effect).toEqual({ kind: 'start', limits: { maxIterations: 3, timeoutMinutes: 35 }, worktree: false });
  });

  it('edits at the cursor: Left, Right, Backspace at the start does nothing, Delete erases before the cursor', () => {
    let { form } = press(fresh(), { leftArrow: true }, '5');
    expect(form.values.maxIterations).toBe('250');
    ({ form } = press(form, { leftArrow: true }, { leftArrow: true }, { leftArrow: true }, BACKSPACE, '1'));
    expect(form.values.maxIterations).toBe('1250');
    ({ form } = press(form, { rightArrow: true }, { rightArrow: true }, { rightArrow: true }, { rightArrow: true }, { delete: true }));
    expect(form.values.maxIterations).toBe('125');
    expect(form.cursors.maxIterations).toBe(3);
  });

  it('control keys and Alt combinations are not typed into a field', () => {
    const { form } = press(fresh(), '\x01', { ctrl: true }, { meta: true }, '');
    expect(form.values).toEqual({ maxIterations: '20', timeoutMinutes: '30' });
  });

  it('the worktree switch: Tab twice reaches it, Space flips, y and n set, letters on it edit no field; Enter starts with it', () => {
    let { form } = press(fresh(), TAB, TAB);
    expect(form.focus).toBe('worktree');
    ({ form } = press(form, ' '));
    expect(form.worktree).toBe(true);
    ({ form } = press(form, 'n', '7'));
    expect(form.worktree).toBe(false);
    expect(form.values).toEqual({ maxIterations: '20', timeoutMinutes: '30' });
    const { effect } = press(form, 'y', ENTER);
    expect(effect).toEqual({ kind: 'start', limits: { maxIterations: 20, timeoutMinutes: 30 }, worktree: true });
    expect(press(fresh(true), ENTER).effect).toMatchObject({ worktree: true });
  });

  it('Tab wraps; Shift-Tab and Up go back, Down goes on', () => {
    expect(press(fresh(), TAB, TAB, TAB).form.focus).toBe('maxIterations');
    expect(press(fresh(), SHIFT_TAB).form.focus).toBe('worktree');
    expect(press(fresh(), { downArrow: true }, { upArrow: true }, { upArrow: true }).form.focus).toBe('worktree');
  });

  it('Enter with an invalid value starts nothing: each field gets its reason, the focus goes to the first; an edit clears its reason', () => {
    // Backspace on the switch edits no field: the values stay valid and Enter starts
    expect(press(fresh(), TAB, TAB, BACKSPACE, BACKSPACE, ENTER).effect).toMatchObject({ kind: 'start', limits: { maxIterations: 20, timeoutMinutes: 30 } });
    const bad = press(fresh(), BACKSPACE, BACKSPACE, TAB, BACKSPACE, BACKSPACE, '0', ENTER);
    expect(bad.effect).toEqual({ kind: 'none' });
    expect(bad.form.errors.maxIterations).toBe('a value is needed');
    expect(bad.form.errors.timeoutMinutes).toMatch(/0/);
    expect(bad.form.focus).toBe('maxIterations');
    const edited = press(bad.form, '9');
    expect(edited.form.errors).toEqual({ maxIterations: undefined, timeoutMinutes: bad.form.errors.timeoutMinutes });
    expect(press(edited.form, { leftArrow: true }).form.errors.timeoutMinutes).toBe(bad.form.errors.timeoutMinutes);
  });

  it('Esc cancels, whatever has focus', () => {
    expect(press(fresh(), TAB, TAB, { escape: true, meta: true }).effect).toEqual({ kind: 'cancel' });
  });
});
