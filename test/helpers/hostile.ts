import fc from 'fast-check';

/**
 * Arbitraries for input written by an agent or a person who means harm, or by a program
 * with a bug: deep nesting, huge strings, lone surrogates, prototype keys, NaN / Infinity
 * / -0, control characters. Shared by the property-based tests (test/unit/fuzz-*.test.ts).
 */

/** Generous: a property is a correctness check, and the machine is shared. */
export const TIME_BOUND_MS = 2000;

/** Keys that have meant trouble for code that copies objects. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'] as const;

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const control = fc.integer({ min: 0, max: 0x9f }).filter((c) => c < 0x20 || c >= 0x7f).map((c) => String.fromCharCode(c));
const escapes = fc.constantFrom('\x1b[2J', '\x1b]0;title\x07', '\x1b]8;;http://x\x1b\\', '\x1bP+q\x1b\\', '\x9b31m', '\r\n', '\u202e', '\ufeff', '\u0000');
const anyCodePoint = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 });

/** One unit of a hostile string: any code point, a lone surrogate, a control character, an escape sequence. */
const unit = fc.oneof({ weight: 6, arbitrary: anyCodePoint }, loneSurrogate, control, escapes, fc.constantFrom('"', '\\', '{', '[', '}', ']', ',', ':'));

/** A hostile string: mostly short, now and then huge (up to ~64 KB). */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ unit, minLength: 1, maxLength: 8 }), fc.integer({ min: 1000, max: 8000 })).map(([s, n]) => s.repeat(n)) },
);

/** Numbers JSON cannot hold and those that break arithmetic. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, Number.MAX_SAFE_INTEGER + 2, Number.MIN_VALUE, 1e308, -1, 2 ** 53),
  fc.double(),
  fc.integer(),
);

/** Object keys: ordinary, prototype keys, hostile. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  fc.constantFrom(...PROTO_KEYS),
  hostileString.filter((s) => s.length < 100),
);

/** A value nested `depth` deep (arrays or objects): far past what recursion survives. */
export const deepValue = (max = 20_000): fc.Arbitrary<unknown> => fc.tuple(fc.integer({ min: 1, max }), fc.boolean()).map(([depth, arrays]) => {
  let v: unknown = arrays ? [] : {};
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
});

/**
 * A hostile JS value as JSON.parse may give it (and more: NaN, -0, prototype keys as own
 * properties): recursive, sometimes very deep.
 */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true },
      hostileString, hostileNumber, fc.boolean(), fc.constant(null),
      fc.array(tie('value'), { maxLength: 5 }),
      fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 5 }).map((pairs) => {
        const o: Record<string, unknown> = {};
        // defined, not assigned: `__proto__` becomes an own key, as JSON.parse makes it
        for (const [k, v] of pairs) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
        return o;
      })),
  })).value },
  { weight: 1, arbitrary: deepValue() },
);

/** `value` with `fields` set to hostile values (a known shape, bent). */
export function bent(value: Record<string, unknown>, fields: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc.tuple(fc.subarray([...fields], { minLength: 1 }), fc.array(hostileValue, { minLength: fields.length, maxLength: fields.length }), fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 3 }))
    .map(([picked, values, extra]) => {
      const out: Record<string, unknown> = { ...value };
      picked.forEach((f, i) => { out[f] = values[i]; });
      for (const [k, v] of extra) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      return out;
    });
}

/** JSON text as a writer may give it: valid JSON of a hostile value, deep nesting, numbers past range, broken text. */
export function hostileJsonText(valid: fc.Arbitrary<unknown> = hostileValue): fc.Arbitrary<string> {
  const json = valid.map((v) => safeStringify(v));
  return fc.oneof(
    { weight: 4, arbitrary: json },
    // nesting as text, thousands deep: fine for JSON.parse, deadly for recursion
    fc.tuple(fc.integer({ min: 1000, max: 20_000 }), fc.constantFrom('[', '{"a":')).map(([d, open]) => `${open.repeat(d)}1${(open === '[' ? ']' : '}').repeat(d)}`),
    // numbers JSON.parse turns into Infinity or -0
    fc.constantFrom('1e400', '-1e400', '-0', '{"iteration": 1e400}', '{"iteration": -0}', '[1e999]'),
    // a valid text cut, or with bytes changed
    fc.tuple(json, fc.nat(), fc.string({ unit, maxLength: 4 })).map(([t, at, ins]) => t.slice(0, at % (t.length + 1)) + ins + t.slice(at % (t.length + 1) + 1)),
    hostileString,
  );
}

/** Hostile bytes: random, invalid UTF-8, NULs, a text's bytes. */
export const hostileBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 512 }),
  hostileJsonText().map((t) => new Uint8Array(Buffer.from(t, 'utf8'))),
  fc.constantFrom(new Uint8Array([0xff, 0xfe, 0x00]), new Uint8Array([0xed, 0xa0, 0x80]), new Uint8Array([0xc0, 0x80]), new Uint8Array(0)),
);

/** JSON.stringify that survives any value: what it cannot write (too deep) becomes a deep text of its own. */
export function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
  }
}

/** Runs `fn`, failing the property when it throws or takes longer than the bound; returns its value. */
export function quick<T>(fn: () => T, boundMs = TIME_BOUND_MS): T {
  const start = performance.now();
  const out = fn();
  const took = performance.now() - start;
  if (took > boundMs) throw new Error(`took ${Math.round(took)} ms (bound ${boundMs} ms)`);
  return out;
}

/** Async form of `quick`. */
export async function quickAsync<T>(fn: () => Promise<T>, boundMs = TIME_BOUND_MS): Promise<T> {
  const start = performance.now();
  const out = await fn();
  const took = performance.now() - start;
  if (took > boundMs) throw new Error(`took ${Math.round(took)} ms (bound ${boundMs} ms)`);
  return out;
}

/** Whether `s` holds a control character (C0, DEL, C1) a terminal would act on. */
export const hasControl = (s: string): boolean => /[\u0000-\u001f\u007f-\u009f]/.test(s);

/** numRuns for a property: modest, so the suite's time stays small; FUZZ_RUNS_FACTOR multiplies it for a longer local run. */
export const runs = (n: number): number => Math.max(1, Math.round(n * Number(process.env.FUZZ_RUNS_FACTOR ?? 1)));
