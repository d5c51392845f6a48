import { delimiter } from 'node:path';
import { AgentCommandError, splitAgentCommand } from '../agents/command.js';
import { userPath } from '../paths.js';
import { describeValue } from '../format/bounded.js';

/** Where a raw value came from, and what relative paths in it are relative to. */
export interface ParseContext {
  origin: 'flag' | 'env' | 'file';
  /** cwd for flags and environment, the file's own folder for a config file. */
  baseDir: string;
  /** For a leading `~` in paths: config files and quoted values get no shell expansion. */
  home: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** A value type: how to parse and check one raw value, and how it reads in --help. */
export interface Kind<T> {
  /** Placeholder in the help text, e.g. N, DIR, COMMAND. */
  arg: string;
  /** Shown in help and in range errors, e.g. "1..1000", "> 0". */
  range?: string;
  /** The flag may be repeated, each value kept. */
  multiple?: boolean;
  parse(raw: unknown, ctx: ParseContext): Parsed<T>;
}

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(message: string): Parsed<T> => ({ ok: false, message });

/** A raw value as the user wrote it: strings quoted, so `""` and `" 5"` are visible. */
export function show(raw: unknown): string {
  return typeof raw === 'number' ? String(raw) : describeValue(raw, 60);
}

// Plain decimals only: Number() would also take "0x10", "1e3" and "" (as 0).
const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)$/;

interface Bounds {
  min: number;
  /** `> min` instead of `>= min`: durations of zero make no sense. */
  exclusive?: boolean;
  max?: number;
}

function rangeText({ min, exclusive, max }: Bounds): string {
  if (max === undefined) return exclusive ? `> ${min}` : `>= ${min}`;
  return `${exclusive ? '>' : ''}${min}..${max}`;
}

function numberKind(integer: boolean, bounds: Bounds, arg: string): Kind<number> {
  const range = rangeText(bounds);
  return {
    arg,
    range,
    parse(raw) {
      let n: number;
      if (typeof raw === 'number') n = raw;
      else if (typeof raw === 'string' && DECIMAL.test(raw.trim())) n = Number(raw.trim());
      else return fail(`${show(raw)} is not a number`);
      if (!Number.isFinite(n)) return fail(`${show(raw)} is not a number`);
      if (integer && !Number.isInteger(n)) return fail(`${show(raw)} is not a whole number`);
      const { min, exclusive, max } = bounds;
      if ((exclusive ? n <= min : n < min) || (max !== undefined && n > max)) {
        return fail(`${n} is out of range (${range})`);
      }
      return ok(n);
    },
  };
}

export const int = (min: number, max?: number, arg = 'N'): Kind<number> =>
  numberKind(true, { min, max }, arg);

export const decimal = (bounds: Bounds, arg = 'N'): Kind<number> => numberKind(false, bounds, arg);

/** One of a few words; `arg` names it in help when the list is too long to show inline. */
export function choice<const V extends string>(values: readonly V[], arg?: string): Kind<V> {
  return {
    arg: arg ?? values.join('|'),
    range: arg ? values.join('|') : undefined,
    parse(raw) {
      const v = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
      return values.includes(v as V) ? ok(v as V) : fail(`${show(raw)} is not one of ${values.join(', ')}`);
    },
  };
}

/**
 * A set of words from a list: `a,b` (flag, environment or file) or an array (file), each
 * one of `values`; `none`, an empty string or an empty array is the empty set. Order kept,
 * repeats dropped.
 */
export function choiceList<const V extends string>(values: readonly V[], arg: string): Kind<V[]> {
  const known = `${values.join(', ')}, or none`;
  return {
    arg,
    range: `comma-separated ${values.join('|')}, or none`,
    parse(raw) {
      let words: unknown[];
      if (typeof raw === 'string') words = raw.split(',');
      else if (Array.isArray(raw)) words = raw;
      else return fail(`${show(raw)} is not a comma-separated list of ${known}`);
      const out: V[] = [];
      let none = false;
      for (const word of words) {
        if (typeof word !== 'string') return fail(`${show(word)} is not one of ${known}`);
        const v = word.trim().toLowerCase();
        if (v === '') continue;
        if (v === 'none') none = true;
        else if (!values.includes(v as V)) return fail(`${show(word.trim())} is not one of ${known}`);
        else if (!out.includes(v as V)) out.push(v as V);
      }
      if (none && out.length > 0) return fail(`"none" cannot be combined with ${out.join(', ')}`);
      return ok(out);
    },
  };
}

const isStringArray = (raw: unknown): raw is string[] =>
  Array.isArray(raw) && raw.every((x) => typeof x === 'string');

/** An argv template: a string is split with shell-like quoting (never run by a shell), an array is taken as is. */
export const argv: Kind<string[]> = {
  arg: 'COMMAND',
  parse(raw) {
    if (typeof raw === 'string') {
      try {
        return ok(splitAgentCommand(raw));
      } catch (e) {
        if (e instanceof AgentCommandError) return fail(e.message);
        throw e;
      }
    }
    if (!isStringArray(raw)) return fail(`${show(raw)} is not a command string or an array of strings`);
    if (raw.length === 0 || raw[0] === '') return fail('the agent command is empty');
    return ok([...raw]);
  },
};

/** An argv like `argv`, or nothing: an empty string, `none` or an empty array turn it off (`[]`). */
export const optionalArgv: Kind<string[]> = {
  arg: 'COMMAND',
  parse(raw, ctx) {
    if ((typeof raw === 'string' && (raw.trim() === '' || raw.trim().toLowerCase() === 'none')) || (Array.isArray(raw) && raw.length === 0)) return ok([]);
    return argv.parse(raw, ctx);
  },
};

/**
 * An http(s) URL, or nothing (an empty string or `none`: `''`). A bad one is refused
 * without quoting it whole: it may hold a token.
 */
export const httpUrl: Kind<string> = {
  arg: 'URL',
  parse(raw) {
    if (typeof raw !== 'string') return fail('not a URL: give a string like https://ntfy.sh/my-topic');
    const text = raw.trim();
    if (text === '' || text.toLowerCase() === 'none') return ok('');
    let u: URL;
    try {
      u = new URL(text);
    } catch {
      return fail('not a URL like https://ntfy.sh/my-topic (the value is not shown: it may hold a token)');
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return fail(`an http or https URL only, not ${u.protocol.slice(0, 20)}`);
    return ok(u.href);
  },
};

export const path = (arg = 'PATH'): Kind<string> => ({
  arg,
  parse(raw, ctx) {
    if (typeof raw !== 'string' || raw.trim() === '') return fail(`${show(raw)} is not a path`);
    return ok(userPath(raw, ctx.home, ctx.baseDir));
  },
});

/** A list of folders: repeated flags, an array in a file, or one variable split like PATH. */
export const paths: Kind<string[]> = {
  arg: 'DIR',
  multiple: true,
  parse(raw, ctx) {
    let list: unknown[];
    if (typeof raw === 'string') list = ctx.origin === 'env' ? raw.split(delimiter).filter((s) => s !== '') : [raw];
    else if (Array.isArray(raw)) list = raw;
    else return fail(`${show(raw)} is not a list of folders`);
    if (list.length === 0) return fail('needs at least one folder');
    const bad = list.find((p) => typeof p !== 'string' || p.trim() === '');
    if (bad !== undefined) return fail(`${show(bad)} is not a folder path`);
    return ok((list as string[]).map((p) => userPath(p, ctx.home, ctx.baseDir)));
  },
};

// Tab, Enter, line feed and Backspace are the same bytes as ctrl-i/m/j/h: unusable as a detach key.
const TAKEN_KEYS: Record<string, string> = { i: 'Tab', m: 'Enter', j: 'line feed', h: 'Backspace' };

/** A control key such as `ctrl-q` (also `ctrl+q`, `C-q`), normalised to `ctrl-q`. */
export const controlKey: Kind<string> = {
  arg: 'KEY',
  range: 'ctrl-<letter>',
  parse(raw) {
    const m = typeof raw === 'string' ? /^\s*(?:ctrl|c)[-+]([a-z\]\\^_])\s*$/i.exec(raw) : null;
    if (!m?.[1]) return fail(`${show(raw)} is not a control key like ctrl-q`);
    const k = m[1].toLowerCase();
    const taken = TAKEN_KEYS[k];
    if (taken) return fail(`ctrl-${k} is the same key as ${taken}; choose another, like ctrl-q`);
    return ok(`ctrl-${k}`);
  },
};

/** The byte a terminal sends for a key accepted by `controlKey` (ctrl-q -> "\x11"). */
export function controlKeyByte(key: string): string {
  const c = key.slice(key.length - 1).toUpperCase();
  return String.fromCharCode(c.charCodeAt(0) & 0x1f);
}
