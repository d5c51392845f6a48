import { START_FIELDS, nextFocus, validateStartForm, type StartField, type StartFocus, type StartValues } from './startForm.js';
import type { Limits } from '../history/suggest.js';

/**
 * Everything the start dialog shows and edits: the two fields' text and cursors, where the
 * focus is, the worktree switch, and what the last Enter said.
 */
export interface StartForm {
  values: StartValues;
  /** Each field's cursor, as an offset into its text. */
  cursors: Record<StartField, number>;
  focus: StartFocus;
  worktree: boolean;
  errors: Partial<Record<StartField, string>>;
  /** Why the last start was refused. */
  failure?: string;
}

/** The keys the dialog reads (the shape of Ink's key, without depending on it). */
export interface FormKey {
  tab?: boolean;
  shift?: boolean;
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  meta?: boolean;
}

/** What a key asks of the dialog beyond its own state. */
export type StartFormEffect = { kind: 'none' } | { kind: 'cancel' } | { kind: 'start'; limits: Limits; worktree: boolean };

export function initialStartForm(values: StartValues, worktree: boolean): StartForm {
  return {
    values,
    cursors: { maxIterations: values.maxIterations.length, timeoutMinutes: values.timeoutMinutes.length },
    focus: 'maxIterations',
    worktree,
    errors: {},
  };
}

const isField = (focus: StartFocus): focus is StartField => (START_FIELDS as readonly string[]).includes(focus);

/**
 * One key applied to the form as the previous key left it. Enter starts only when both
 * values are valid; otherwise each invalid one gets its reason and the focus goes to the first.
 */
export function startFormKey(form: StartForm, input: string, key: FormKey): { form: StartForm; effect: StartFormEffect } {
  const none = (next: StartForm) => ({ form: next, effect: { kind: 'none' } as const });
  if (key.escape) return { form, effect: { kind: 'cancel' } };
  if (key.tab || key.upArrow || key.downArrow) {
    return none({ ...form, focus: nextFocus(form.focus, key.upArrow || (key.tab && key.shift) ? -1 : 1) });
  }
  if (key.return) {
    const checked = validateStartForm(form.values);
    if (!checked.ok) {
      return none({ ...form, errors: checked.errors, focus: START_FIELDS.find((f) => checked.errors[f]) ?? form.focus });
    }
    return { form: { ...form, errors: {} }, effect: { kind: 'start', limits: checked.limits, worktree: form.worktree } };
  }
  const focus = form.focus;
  if (!isField(focus)) {
    // the worktree switch: Space flips it, y / n set it
    if (input === ' ') return none({ ...form, worktree: !form.worktree });
    if (input === 'y' || input === 'n') return none({ ...form, worktree: input === 'y' });
    return none(form);
  }
  const text = form.values[focus];
  const cursor = form.cursors[focus];
  const at = (t: string, c: number): StartForm => ({
    ...form,
    values: { ...form.values, [focus]: t },
    cursors: { ...form.cursors, [focus]: c },
    // only a real edit clears the field's error and a refusal
    ...(t === text ? {} : { errors: { ...form.errors, [focus]: undefined }, failure: undefined }),
  });
  if (key.leftArrow) return none(at(text, Math.max(0, cursor - 1)));
  if (key.rightArrow) return none(at(text, Math.min(text.length, cursor + 1)));
  // Terminals send Backspace as DEL, which some parsers name "delete": both erase the character before the cursor.
  if (key.backspace || key.delete) return none(cursor === 0 ? form : at(text.slice(0, cursor - 1) + text.slice(cursor), cursor - 1));
  if (key.ctrl || key.meta || input === '' || /[\x00-\x1f\x7f]/.test(input)) return none(form);
  return none(at(text.slice(0, cursor) + input + text.slice(cursor), cursor + input.length));
}
