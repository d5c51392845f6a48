/**
 * Copies and descriptions of values autodeck did not make (an agent's signal file, a hook's
 * payload, an API body, a transcript line, a settings file): bounded in depth, in the length
 * of each string, in entries and in total, so that keeping, storing, sending or showing
 * one never recurses without limit (JSON.stringify of an array nested a few thousand deep
 * overflows the stack) and never holds more than a few kilobytes. Never throws.
 */

/** How much of an untrusted value a copy keeps. */
export interface Bounds {
  /** Levels of objects and arrays kept; deeper ones are replaced by a marker. */
  depth: number;
  /** Characters kept of each string (and of each key). */
  string: number;
  /** Entries kept of each object or array. */
  items: number;
  /** Characters of strings and keys kept in all; once spent, the rest is left out. */
  total: number;
}

/** For event details and hook payloads: room for a command line or a prompt, not a file. */
export const DETAIL_BOUNDS: Bounds = { depth: 8, string: 4000, items: 100, total: 32_000 };

/** The marker of what a copy left out. */
export const CUT = '…';

/** `s` cut to at most `max` characters, a surrogate pair never split; `CUT` marks a cut. */
export function cutString(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = Math.max(0, max - 1);
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${s.slice(0, end)}${CUT}`;
}

interface Budget {
  left: number;
}

/**
 * A plain-data copy of `value` within `bounds`: objects (own enumerable string keys, any
 * name, `__proto__` included, kept as data), arrays, strings, finite numbers (-0 as 0),
 * booleans and null. NaN and the infinities become null, as in JSON; a bigint its digits;
 * a Date its ISO time; functions, symbols and undefined are left out (null in an array).
 * Deeper levels become `"[…]"` / `"{…}"`, further entries a count of what was left out.
 */
export function boundedCopy(value: unknown, bounds: Bounds = DETAIL_BOUNDS): unknown {
  return copy(value, bounds, 0, { left: bounds.total });
}

/** The same for an object (an event's detail): always an object. */
export function boundedDetail(detail: Record<string, unknown>, bounds: Bounds = DETAIL_BOUNDS): Record<string, unknown> {
  const out = copy(detail, bounds, 0, { left: bounds.total });
  return out !== null && typeof out === 'object' && !Array.isArray(out) ? out as Record<string, unknown> : {};
}

function copy(value: unknown, bounds: Bounds, level: number, budget: Budget): unknown {
  switch (typeof value) {
    case 'string':
      return take(value, bounds.string, budget);
    case 'number':
      return Number.isFinite(value) ? (Object.is(value, -0) ? 0 : value) : null;
    case 'boolean':
      return value;
    case 'bigint':
      return take(value.toString(), bounds.string, budget);
    case 'object':
      break;
    default:
      return undefined; // undefined, functions, symbols
  }
  if (value === null) return null;
  try {
    if (value instanceof Date) return Number.isFinite(value.getTime()) ? value.toISOString() : null;
    if (Array.isArray(value)) {
      if (level >= bounds.depth) return '[…]';
      const n = Math.min(value.length, bounds.items);
      const out: unknown[] = [];
      for (let i = 0; i < n; i++) {
        if (budget.left <= 0) break;
        const v = copy(value[i], bounds, level + 1, budget);
        out.push(v === undefined ? null : v);
      }
      if (out.length < value.length) out.push(`${CUT} ${value.length - out.length} more`);
      return out;
    }
    if (level >= bounds.depth) return '{…}';
    const out: Record<string, unknown> = {};
    const keys = Object.keys(value);
    let kept = 0;
    for (const key of keys) {
      if (kept >= bounds.items || budget.left <= 0) break;
      kept++;
      const v = copy((value as Record<string, unknown>)[key], bounds, level + 1, budget);
      if (v === undefined) continue;
      // a defined property: an own key named __proto__ stays data, never the copy's prototype
      Object.defineProperty(out, take(key, bounds.string, budget), { value: v, enumerable: true, writable: true, configurable: true });
    }
    if (kept < keys.length) Object.defineProperty(out, CUT, { value: `${keys.length - kept} more`, enumerable: true, writable: true, configurable: true });
    return out;
  } catch {
    return '(unreadable)'; // a getter or proxy that throws: not data
  }
}

function take(s: string, max: number, budget: Budget): string {
  const kept = cutString(s, Math.max(1, Math.min(max, budget.left)));
  budget.left -= kept.length;
  return kept;
}

/**
 * One short line that shows a value as it was written (strings quoted, so `""` and `" 5"`
 * are visible): at most `max` characters of its JSON, `...` marking a cut.
 */
export function describeValue(value: unknown, max = 40): string {
  const small = boundedCopy(value, { depth: 3, string: max, items: 8, total: max * 2 });
  const s = JSON.stringify(small) ?? String(value);
  if (s.length <= max) return s;
  let end = Math.max(0, max - 3);
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${s.slice(0, end)}...`;
}

/**
 * `text` as one printable line of at most `max` characters: control characters (C0, DEL,
 * C1) shown as `\xNN`, so that what a file or an agent wrote never drives a terminal.
 */
export function printableLine(text: string, max = 500): string {
  return cutString(text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`), max);
}
