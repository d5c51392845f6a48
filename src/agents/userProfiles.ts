import type { AgentProfile } from '../config/schema.js';
import { PROFILES, REGIONS, SCREEN_KINDS, type Profile, type Region, type ScreenPattern } from './profiles.js';

type PatternKind = ScreenPattern['kind'];

/**
 * The built-in profile with the user's additions from the settings file's `profiles`
 * key: `{"claude": {"patterns": [{"kind": "yes_no_prompt", "regex": "Proceed\\?", "flags": "i",
 * "region": "bottom"}], "continuationMessage": "..."}}`. A user pattern is tried before the
 * built-in ones of its kind; kinds keep their order. Errors name the key at fault.
 */
export function resolveProfile(name: AgentProfile, extensions: unknown): { profile: Profile; errors: string[] } {
  const base = PROFILES[name];
  const errors: string[] = [];
  if (extensions === undefined || extensions === null) return { profile: base, errors };
  if (typeof extensions !== 'object' || Array.isArray(extensions)) return { profile: base, errors: ['profiles: must be an object keyed by profile name'] };
  for (const key of Object.keys(extensions)) {
    if (!(key in PROFILES)) errors.push(`profiles.${key}: not a profile (${Object.keys(PROFILES).join(', ')})`);
  }
  const ext = (extensions as Record<string, unknown>)[name];
  if (ext === undefined) return { profile: base, errors };
  if (!ext || typeof ext !== 'object' || Array.isArray(ext)) return { profile: base, errors: [...errors, `profiles.${name}: must be an object`] };
  const e = ext as Record<string, unknown>;
  const added: ScreenPattern[] = [];
  for (const key of Object.keys(e)) {
    if (key !== 'patterns' && key !== 'continuationMessage') errors.push(`profiles.${name}.${key}: unknown key (patterns, continuationMessage)`);
  }
  const list = e.patterns ?? [];
  if (!Array.isArray(list)) errors.push(`profiles.${name}.patterns: must be an array`);
  else list.forEach((raw, i) => {
    const at = `profiles.${name}.patterns[${i}]`;
    const r = (raw ?? {}) as Record<string, unknown>;
    if (!(SCREEN_KINDS as readonly string[]).includes(r.kind as string)) {
      errors.push(`${at}.kind: must be one of ${SCREEN_KINDS.join(', ')}`);
      return;
    }
    const region = (r.region ?? 'screen') as Region;
    if (!REGIONS.includes(region)) {
      errors.push(`${at}.region: must be one of ${REGIONS.join(', ')}`);
      return;
    }
    try {
      added.push({ kind: r.kind as PatternKind, regex: new RegExp(String(r.regex ?? ''), typeof r.flags === 'string' ? r.flags : ''), region, source: 'settings file' });
      if (typeof r.regex !== 'string' || r.regex === '') errors.push(`${at}.regex: must be a non-empty string`);
    } catch (err) {
      errors.push(`${at}.regex: ${(err as Error).message}`);
    }
  });
  let continuationMessage = base.continuationMessage;
  if (e.continuationMessage !== undefined) {
    if (typeof e.continuationMessage !== 'string' || e.continuationMessage.trim() === '') errors.push(`profiles.${name}.continuationMessage: must be a non-empty string`);
    else continuationMessage = e.continuationMessage;
  }
  if (errors.length > 0) return { profile: base, errors };
  return { profile: { ...base, patterns: [...added, ...base.patterns], continuationMessage }, errors };
}
