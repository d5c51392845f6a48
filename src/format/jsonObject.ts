/**
 * Untrusted JSON that must be an object (a signal, a hook's event, a lock, a job's state, a
 * host's answer): parsed once, the two ways it can fail told apart. Pure.
 */

export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isJsonObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function parseJsonObject(text: string): { ok: true; value: JsonObject } | { ok: false; problem: 'not JSON' | 'not a JSON object' } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'not JSON' };
  }
  return isJsonObject(raw) ? { ok: true, value: raw } : { ok: false, problem: 'not a JSON object' };
}

/** The object, or undefined for anything else: where a bad file only means "nothing there". */
export function jsonObjectOrUndefined(text: string): JsonObject | undefined {
  const r = parseJsonObject(text);
  return r.ok ? r.value : undefined;
}
