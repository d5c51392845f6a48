/**
 * The words autodeck hands to tmux and to sh, built without running anything: escaping,
 * command chains, the pane's environment plan and the `new-session` call. Why each rule
 * exists (what tmux 3.3 does with a word) is at the top of tmux.ts.
 */

/** Lines a pane keeps above its screen: the pty backend's scrollback bound. */
export const HISTORY_LIMIT = 1000;
/** Below tmux's 16 KiB per command message, with room for its header. */
export const COMMAND_BYTES_MAX = 12_000;
/** Variables tmux sets in every pane, describing its own terminal: left as tmux sets them. */
export const TMUX_OWN_ENV: ReadonlySet<string> = new Set(['TERM', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION', 'TMUX', 'TMUX_PANE', 'PWD']);
/** Runs its arguments without parsing them: `$0` is the program, `"$@"` the rest. */
export const TRAMPOLINE: readonly string[] = ['/bin/sh', '-c', 'exec "$0" "$@"'];
const ENV_PROGRAM = '/usr/bin/env';

/** tmux ends a command at an argument ending in `;`; `\;` at the end is a literal `;`. */
export function escapeTmuxArg(word: string): string {
  return word.endsWith(';') ? `${word.slice(0, -1)}\\;` : word;
}

/** Text that tmux expands as a format (`-c`, `pipe-pane`): `##` is a literal `#`. */
export function escapeTmuxFormat(text: string): string {
  return text.replaceAll('#', '##');
}

/** One POSIX sh word, whatever the text (no NUL): single quotes, `'` as `'\''`. */
export function shQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Commands for one tmux call, `;` between them, every word escaped. */
export function tmuxChain(commands: readonly (readonly string[])[]): string[] {
  return commands.flatMap((cmd, i) => [...(i > 0 ? [';'] : []), ...cmd.map(escapeTmuxArg)]);
}

/** Bytes of the command message tmux builds from these words. */
export function commandBytes(words: readonly string[]): number {
  return words.reduce((n, w) => n + Buffer.byteLength(w) + 1, 0);
}

/**
 * `show-environment -s` output: `NAME="value"; export NAME;` (with `$`, backquote, `"`
 * and `\` escaped by a backslash, newlines raw) or `unset NAME;`. Unset names map to null.
 */
export function parseShowEnvironment(out: string): Map<string, string | null> {
  const env = new Map<string, string | null>();
  const entry = /^unset ([^\n;]+);$|^([^=\n]+)="((?:[^"\\]|\\[\s\S])*)"; export \2;$/gm;
  for (const m of out.matchAll(entry)) {
    if (m[1] !== undefined) env.set(m[1], null);
    else if (m[2] !== undefined) env.set(m[2], (m[3] ?? '').replace(/\\([\s\S])/g, '$1'));
  }
  return env;
}

/** `tmux -V` -> [major, minor]; undefined for a build without a number (`tmux master`). */
export function parseTmuxVersion(out: string): [number, number] | undefined {
  const m = /(\d+)\.(\d+)/.exec(out);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

export interface EnvPlan {
  /** Through `new-session -e`. */
  set: [string, string][];
  /** Through the `env` wrapper: variables tmux would set otherwise (SHELL). */
  assign: [string, string][];
  /** Through the `env` wrapper: variables the pane would inherit and the agent must not have. */
  unset: string[];
}

/**
 * How a pane gets exactly `want` (TMUX_OWN_ENV aside), given the server's global
 * environment and default-shell. PATH is not here: tmux takes it from the client's own
 * environment, so the spawning client runs with the agent's PATH.
 */
export function planEnv(want: Readonly<Record<string, string>>, global: ReadonlyMap<string, string | null>, defaultShell: string | undefined): EnvPlan {
  const plan: EnvPlan = { set: [], assign: [], unset: [] };
  const special = (k: string) => TMUX_OWN_ENV.has(k) || k === 'PATH' || k === 'SHELL' || k === '';
  for (const [k, v] of Object.entries(want)) {
    if (special(k)) continue;
    if (global.get(k) !== v) plan.set.push([k, v]);
  }
  for (const [k, v] of global) if (v !== null && !special(k) && !Object.hasOwn(want, k)) plan.unset.push(k);
  if (!Object.hasOwn(want, 'PATH')) plan.unset.push('PATH');
  if (!Object.hasOwn(want, 'SHELL')) plan.unset.push('SHELL');
  else if (want.SHELL !== defaultShell) plan.assign.push(['SHELL', want.SHELL!]);
  return plan;
}

/** `env -u ... -- NAME=value ...`, or nothing when there is nothing to change. */
function envWrapper(unset: readonly string[], assign: readonly (readonly [string, string])[]): string[] {
  if (unset.length === 0 && assign.length === 0) return [];
  return [ENV_PROGRAM, ...unset.flatMap((n) => ['-u', n]), '--', ...assign.map(([k, v]) => `${k}=${v}`)];
}

/** The words tmux runs for `argv`: argv itself when tmux can execvp() it, else through the trampoline. */
export function commandWords(argv: readonly string[], plan: Pick<EnvPlan, 'assign' | 'unset'>): string[] {
  const wrapper = envWrapper(plan.unset, plan.assign);
  if (wrapper.length === 0 && argv.length >= 2) return [...argv];
  return [...wrapper, ...TRAMPOLINE, ...argv];
}

/** Server-wide options, set in the same call before the session so an early exit is seen. */
export const SERVER_OPTIONS: readonly (readonly string[])[] = [
  ['set-option', '-g', 'remain-on-exit', 'on'],
  ['set-option', '-g', 'remain-on-exit-format', ''],
  ['set-option', '-g', 'status', 'off'],
  ['set-option', '-g', 'history-limit', String(HISTORY_LIMIT)],
  // The session environment is ours alone (-e), not copied from the tmux client.
  ['set-option', '-g', 'update-environment', ''],
];

const NEW_PANE_FORMAT = '#{pane_id}\t#{pane_pid}';

export interface SpawnCommand {
  /** Arguments after the global flags (escaped, chained). */
  args: string[];
  /** When set: the launcher to write at `path` before running `args`. */
  launcher?: { path: string; script: string };
}

/** A launcher script: removes itself, then execs the words (quoted for sh). */
export function launcherScript(words: readonly string[]): string {
  return `rm -f -- "$0"; rmdir -- "\${0%/*}" 2>/dev/null\nexec ${words.map(shQuote).join(' ')}\n`;
}

/**
 * The tmux call that creates the session. `launcherPath` is asked for only when the
 * command would exceed tmux's message size.
 */
export function buildSpawnCommand(
  spec: { name: string; argv: readonly string[]; cwd: string; cols: number; rows: number },
  plan: EnvPlan,
  launcherPath: () => string,
): SpawnCommand {
  const head = ['new-session', '-d', '-P', '-F', NEW_PANE_FORMAT, '-s', spec.name, '-x', String(spec.cols), '-y', String(spec.rows), '-c', escapeTmuxFormat(spec.cwd)];
  const direct = tmuxChain([...SERVER_OPTIONS, [...head, ...plan.set.flatMap(([k, v]) => ['-e', `${k}=${v}`]), '--', ...commandWords(spec.argv, plan)]]);
  if (commandBytes(direct) <= COMMAND_BYTES_MAX) return { args: direct };
  const path = launcherPath();
  const words = [...envWrapper(plan.unset, [...plan.set, ...plan.assign]), ...TRAMPOLINE, ...spec.argv];
  return { args: tmuxChain([...SERVER_OPTIONS, [...head, '--', '/bin/sh', path]]), launcher: { path, script: launcherScript(words) } };
}

/**
 * The tmux session of an autodeck session. tmux turns `.` into `_` in a name (and a
 * caller's id may hold `.`): `.` becomes `+`, which no session id holds, so two
 * ids never share a tmux session. Derived names have no `.` and pass unchanged.
 */
export function tmuxSessionName(session: string): string {
  return session.replaceAll('.', '+');
}

/** A name tmux keeps as given (it turns `.` and `:` into `_`) and that we can target exactly. */
export function checkSessionName(name: string): void {
  // eslint-disable-next-line no-control-regex
  if (!name || /[.:\x00-\x1f\x7f]/.test(name) || name.startsWith('=') || name.endsWith(';')) {
    throw new Error(`not a usable tmux session name: ${JSON.stringify(name)}`);
  }
}
