import { show, type Kind, type Parsed } from '../config/kinds.js';

/**
 * The permission mode of the Claude Code sessions autodeck starts, chosen by autodeck's own
 * setting and passed as `--permission-mode` on the command line: never by editing the
 * user's settings files. `inherit` passes nothing (Claude Code's own default: the user's
 * `defaultMode`, auto mode on a fresh 2.1.332). `manual` is the mode Claude Code 2.1.197
 * calls `default` and 2.1.332 `manual`; both accept `default`, so that is what is passed.
 * The approval policy holds in every mode (the PreToolUse hook, src/hooks/preToolUse.ts).
 */

export const CLAUDE_PERMISSION_MODES = ['inherit', 'manual', 'auto', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'] as const;
export type ClaudePermissionMode = (typeof CLAUDE_PERMISSION_MODES)[number];

/** One of the modes, in any letter case (`acceptedits`, `acceptEdits`); `default` is read as `manual`. */
export const claudePermissionModeKind: Kind<ClaudePermissionMode> = {
  arg: 'MODE',
  range: CLAUDE_PERMISSION_MODES.join('|'),
  parse(raw): Parsed<ClaudePermissionMode> {
    const word = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
    if (word === 'default') return { ok: true, value: 'manual' };
    const found = CLAUDE_PERMISSION_MODES.find((m) => m.toLowerCase() === word);
    return found ? { ok: true, value: found } : { ok: false, message: `${show(raw)} is not one of ${CLAUDE_PERMISSION_MODES.join(', ')}` };
  },
};

/** The word Claude Code takes for a mode (both ends of the tested range accept it). */
export function claudeModeArg(mode: ClaudePermissionMode): string | undefined {
  if (mode === 'inherit') return undefined;
  return mode === 'manual' ? 'default' : mode;
}

/** Where the agent command already names a mode (`--permission-mode X`, `--permission-mode=X`, `--dangerously-skip-permissions`). */
export function commandMode(argv: readonly string[]): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return undefined;
    if (a === '--permission-mode') return argv[i + 1];
    if (a.startsWith('--permission-mode=')) return a.slice('--permission-mode='.length);
    if (a === '--dangerously-skip-permissions') return 'bypassPermissions';
  }
  return undefined;
}

/**
 * The argv with `--permission-mode <mode>` right after the program, unless the setting is
 * `inherit` or the agent command names a mode itself (the command is the more specific
 * word). Pure.
 */
export function withPermissionMode(argv: readonly string[], mode: ClaudePermissionMode): string[] {
  const arg = claudeModeArg(mode);
  if (arg === undefined || commandMode(argv) !== undefined) return [...argv];
  return [argv[0]!, '--permission-mode', arg, ...argv.slice(1)];
}

/** The mode the session runs in as far as autodeck chose or saw it: the command's own, else the setting's. */
export function effectiveMode(argv: readonly string[], mode: ClaudePermissionMode): string {
  const named = commandMode(argv);
  if (named === 'default' || named === 'manual') return 'manual';
  return named ?? mode;
}
