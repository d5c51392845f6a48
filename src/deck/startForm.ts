import { homedir } from 'node:os';
import { SETTING_DEFS } from '../config/schema.js';
import type { Limits, LimitSuggestion } from '../history/suggest.js';

/** The start dialog's fields, in tab order. */
export const START_FIELDS = ['maxIterations', 'timeoutMinutes'] as const;
export type StartField = (typeof START_FIELDS)[number];

export const START_FIELD_LABELS: Record<StartField, string> = {
  maxIterations: 'max iterations',
  timeoutMinutes: 'timeout (minutes)',
};

export type StartValues = Record<StartField, string>;

export type StartFormResult =
  | { ok: true; limits: Limits }
  | { ok: false; errors: Partial<Record<StartField, string>> };

/**
 * Checks the dialog's text against the settings' own kinds, so the
 * dialog, the flags and the config files accept exactly the same values.
 */
export function validateStartForm(values: StartValues): StartFormResult {
  const errors: Partial<Record<StartField, string>> = {};
  const limits: Partial<Limits> = {};
  for (const field of START_FIELDS) {
    const kind = SETTING_DEFS[field].kind;
    const parsed = kind.parse(values[field].trim(), { origin: 'flag', baseDir: '/', home: homedir() });
    if (parsed.ok) limits[field] = parsed.value;
    else errors[field] = values[field].trim() === '' ? 'a value is needed' : parsed.message;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, limits: limits as Limits };
}

/** The field after (or before) `field`, wrapping around. */
export function nextField(field: StartField, step: 1 | -1): StartField {
  const i = START_FIELDS.indexOf(field);
  return START_FIELDS[(i + step + START_FIELDS.length) % START_FIELDS.length]!;
}

/**
 * The start dialog's line under the fields: where its figures come from, and when they
 * are the defaults, why (no completed run yet, or too few for a suggestion).
 */
export function startBasisText(suggestion: LimitSuggestion, defaults: Limits): string {
  const plainDefaults = `${defaults.maxIterations} / ${defaults.timeoutMinutes} min`;
  if (suggestion.fromRuns > 0) return `suggested from ${suggestion.basis}; defaults ${plainDefaults}`;
  return `${suggestion.basis.replace(/^defaults: /, `defaults ${plainDefaults}: `)}`;
}
