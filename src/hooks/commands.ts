import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { ownPackageDir } from '../ownPackage.js';
import { which } from '../lazy.js';

export interface HookCommands {
  stop: string;
  state: string;
}

/**
 * The hook commands. Claude Code runs them through a shell, in sessions autodeck did not
 * start too (a person's own, a teammate's when `.claude/settings.json` is committed), so
 * each starts with a shell test that ends it at once without `AUTODECK_SESSION`: no Node
 * start per tool call, and no "command not found" where autodeck is not installed. The
 * program is `autodeck` when that name on PATH is this very autodeck (portable across
 * machines), else this Node and this autodeck's bin by absolute path, quoted for the shell.
 */
export function hookCommands(env: NodeJS.ProcessEnv = process.env, bin: string = ownBin(), node: string = process.execPath): HookCommands {
  const program = onPath(env, bin) ? 'autodeck' : `${shellQuote(node)} ${shellQuote(bin)}`;
  const guarded = (kind: string) => `test -z "$AUTODECK_SESSION" || ${program} hook ${kind}`;
  return { stop: guarded('stop'), state: guarded('state') };
}

/**
 * The same commands as autodeck injects them into a session it starts (`--settings`): marked
 * `--injected`, so that the copies a project's settings may also hold stand aside for them
 * (a Stop hook must never answer one Stop twice).
 */
export function injectedHookCommands(env: NodeJS.ProcessEnv = process.env, bin: string = ownBin(), node: string = process.execPath): HookCommands {
  const plain = hookCommands(env, bin, node);
  return { stop: `${plain.stop} --injected`, state: `${plain.state} --injected` };
}

/** One word for a POSIX shell: bare when it is plainly safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function onPath(env: NodeJS.ProcessEnv, bin: string): boolean {
  const found = which().sync('autodeck', { nothrow: true, path: env.PATH ?? '' });
  return found !== null && realOr(found) === realOr(bin);
}

/** `bin/autodeck.js` of the package this file belongs to (from src/ or dist/src/). */
export function ownBin(): string {
  return join(ownPackageDir(), 'bin', 'autodeck.js');
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
