import { posix } from 'node:path';
import { parse, type ParseEntry } from 'shell-quote';

/**
 * A shell command line cut into the simple commands it runs, with shell-quote (never a
 * regex over the raw text): `a && b; c | d` gives four, each with its words unquoted, the
 * pipeline it belongs to, and its redirections. Wrappers that only run the rest (`sudo`,
 * `env X=1`, `nohup`, `time`, `command`, `exec`, leading `X=1` assignments) are peeled off;
 * `sh -c '…'` is parsed again. Pure.
 */

export interface SimpleCommand {
  /** The words, unquoted, wrappers removed: `['git', 'push', '-f']`. */
  words: string[];
  /** Index of the pipeline this command belongs to (commands joined by `|` share it). */
  pipeline: number;
  /** Position within its pipeline (0 = the first stage). */
  stage: number;
  /** Targets of `>` / `>>` / `&>` redirections. */
  writes: string[];
  /** The working directory a preceding `cd` in the same line moved to, if any (unresolved). */
  cdTo?: string | undefined;
  /** A process substitution `<(…)` or command substitution fed this command. */
  substituted?: SimpleCommand[] | undefined;
}

/** Words that run the rest of the line as a command. */
const WRAPPERS = new Set(['sudo', 'doas', 'nohup', 'time', 'command', 'exec', 'nice', 'stdbuf', 'timeout', 'xargs']);
/** Shells whose `-c` string is itself a command line. */
export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'ash', 'busybox']);

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** `$VAR` stays as written, so a path made of a variable is seen as unknown, not as ''. */
const keepVariables = (key: string): string => `$${key}`;

/** Drops the wrapper words in front of the real command. */
export function peelWrappers(words: readonly string[]): string[] {
  let w = [...words];
  for (let guard = 0; guard < 8 && w.length > 0; guard++) {
    const head = w[0]!;
    if (ASSIGNMENT.test(head)) { w = w.slice(1); continue; }
    if (head === 'env') {
      w = w.slice(1);
      while (w.length > 0 && (ASSIGNMENT.test(w[0]!) || w[0]!.startsWith('-'))) w = w.slice(1);
      continue;
    }
    if (WRAPPERS.has(head)) {
      w = w.slice(1);
      // options of the wrapper (`sudo -u root`, `timeout 5`, `nice -n 5`): skip flags and their values
      while (w.length > 0 && (w[0]!.startsWith('-') || (head === 'timeout' && /^\d/.test(w[0]!)))) {
        const flag = w[0]!;
        w = w.slice(1);
        if ((head === 'sudo' && /^-[ugCDhpRrT]$/.test(flag)) || (head === 'nice' && flag === '-n')) w = w.slice(1);
      }
      continue;
    }
    break;
  }
  return w;
}

/** Splits a command line into its simple commands. `depth` bounds `sh -c` nesting. */
export function splitCommand(line: string, depth = 0): SimpleCommand[] {
  let entries: ParseEntry[];
  try {
    entries = parse(line, keepVariables);
  } catch {
    // shell-quote gives up on some inputs: fall back to whitespace words, one command
    return [{ words: peelWrappers(line.trim().split(/\s+/).filter(Boolean)), pipeline: 0, stage: 0, writes: [] }];
  }
  const out: SimpleCommand[] = [];
  let words: string[] = [];
  let writes: string[] = [];
  let pipeline = 0;
  let stage = 0;
  let cdTo: string | undefined;
  let substituted: SimpleCommand[] | undefined;
  let redirect = false;
  let procSub: string[] | undefined;
  let parens = 0;

  const finish = (): void => {
    const peeled = peelWrappers(words);
    if (peeled.length > 0 || writes.length > 0) {
      out.push({ words: peeled, pipeline, stage, writes, cdTo, substituted });
      if (peeled[0] === 'cd' && peeled[1] !== undefined) cdTo = cdTo !== undefined && !/^[/~$]/.test(peeled[1]) ? posix.join(cdTo, peeled[1]) : peeled[1];
      // `sh -c 'line'`: the string is a command line of its own
      if (depth < 3 && SHELLS.has(base(peeled[0] ?? ''))) {
        const c = peeled.indexOf('-c');
        if (c >= 0 && peeled[c + 1] !== undefined) {
          for (const inner of splitCommand(peeled[c + 1]!, depth + 1)) out.push({ ...inner, pipeline: 1000 * (depth + 1) + pipeline * 10 + inner.pipeline, cdTo: inner.cdTo ?? cdTo });
        }
      }
    }
    words = [];
    writes = [];
    substituted = undefined;
  };

  for (const e of entries) {
    if (procSub) {
      if (typeof e === 'object' && 'op' in e && e.op === '(') parens++;
      if (typeof e === 'object' && 'op' in e && e.op === ')') {
        if (parens === 0) {
          substituted = [...(substituted ?? []), ...splitCommand(procSub.join(' '), depth + 1)];
          procSub = undefined;
          continue;
        }
        parens--;
      }
      procSub.push(typeof e === 'string' ? quoteWord(e) : 'op' in e ? (e.op === 'glob' ? e.pattern : e.op) : '');
      continue;
    }
    if (typeof e === 'string') {
      if (redirect) { writes.push(e); redirect = false; continue; }
      words.push(e);
      continue;
    }
    if ('comment' in e) break;
    if (e.op === 'glob') {
      if (redirect) { writes.push(e.pattern); redirect = false; } else words.push(e.pattern);
      continue;
    }
    switch (e.op) {
      case '>':
      case '>>':
      case '>&':
        // `2>&1`, `2> err`: the descriptor number is no word of the command
        if (/^\d$/.test(words[words.length - 1] ?? '')) words.pop();
        redirect = true;
        break;
      case '<(':
        procSub = [];
        parens = 0;
        break;
      case '|':
      case '|&':
        finish();
        stage++;
        break;
      case '&&':
      case '||':
      case ';':
      case ';;':
      case '&':
        finish();
        pipeline++;
        stage = 0;
        break;
      default:
        break;
    }
  }
  finish();
  // A `>&` followed by a descriptor number is no file.
  for (const c of out) c.writes = c.writes.filter((w) => !/^\d+$/.test(w) && w !== '-');
  // Command substitution `$(curl …)` inside a word: shell-quote leaves it in the word; parse it too.
  for (const c of [...out]) {
    for (const w of c.words) {
      const m = /\$\(([^()]*)\)|`([^`]*)`/.exec(w);
      if (m && depth < 3) c.substituted = [...(c.substituted ?? []), ...splitCommand(m[1] ?? m[2] ?? '', depth + 1)];
    }
  }
  return out;
}

function quoteWord(w: string): string {
  return /^[\w./:@%+=,-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** The program's own name: `/usr/bin/rm` → `rm`. */
export function base(program: string): string {
  const i = program.lastIndexOf('/');
  return i >= 0 ? program.slice(i + 1) : program;
}
