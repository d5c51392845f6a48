import { isAbsolute, relative, resolve } from 'node:path';
import { absolutePath, type ApprovalRequest, type PolicyContext } from './rules.js';
import { base, SHELLS, splitCommand, type SimpleCommand } from './shell.js';

/**
 * What autodeck never lets an unattended loop do without an explicit word from the user:
 * each a pure check over the parsed command or the path. Pure.
 */
export { BUILTIN_IDS, type BuiltinId } from './builtinIds.js';
import type { BuiltinId } from './builtinIds.js';

export interface BuiltinHit {
  id: BuiltinId;
  /** One line for the agent and the event log. */
  why: string;
}

const NETWORK = new Set(['curl', 'wget', 'fetch', 'http', 'https', 'aria2c', 'nc', 'ncat']);
const INTERPRETERS = new Set([...SHELLS, 'python', 'python3', 'perl', 'ruby', 'node', 'php', 'pwsh', 'source', '.', 'eval']);
/** Devices a redirection may always name. */
const DEVICES = /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+)$/;
/** git's options before its subcommand that take a value. */
const GIT_VALUE_OPTS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path']);

/** Whether `path` (absolute) lies inside `dir` (or is it). */
export function inside(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** A command's path argument as an absolute path; undefined when it depends on a variable or substitution. */
function resolveArg(arg: string, cmd: SimpleCommand, ctx: PolicyContext): string | undefined {
  if (arg.includes('$') || arg.includes('`')) return undefined;
  const cwd = cmd.cdTo === undefined ? ctx.cwd : cmd.cdTo.includes('$') ? undefined : absolutePath(cmd.cdTo, ctx, ctx.cwd);
  if (cwd === undefined) return undefined;
  return absolutePath(arg, ctx, cwd);
}

/** The directory a glob's path stands for: `/tmp/*` → `/tmp`, `*` → `.`. */
function globBase(p: string): string {
  const i = p.search(/[*?[]/);
  if (i < 0) return p;
  const cut = p.lastIndexOf('/', i);
  return cut < 0 ? '.' : cut === 0 ? '/' : p.slice(0, cut);
}

function words(cmd: SimpleCommand): { program: string; args: string[] } {
  return { program: base(cmd.words[0] ?? ''), args: cmd.words.slice(1) };
}

function isRecursiveRm(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') break;
    if (a === '--recursive' || a === '-r' || a === '-R') return true;
    if (/^-[a-zA-Z]+$/.test(a) && /[rR]/.test(a)) return true;
  }
  return false;
}

function rmOutside(cmd: SimpleCommand, ctx: PolicyContext): BuiltinHit | undefined {
  const { program, args } = words(cmd);
  if (program !== 'rm' || !isRecursiveRm(args)) return undefined;
  const targets = args.filter((a) => a !== '--' && !a.startsWith('-'));
  // `… | xargs rm -rf`: the paths come from elsewhere, so nothing says they are in the project
  if (targets.length === 0) return { id: 'rm-outside-project', why: 'a recursive delete of paths autodeck cannot see (fed by xargs or a pipe)' };
  let options = true;
  for (const a of args) {
    if (options && a === '--') { options = false; continue; }
    if (options && a.startsWith('-')) continue;
    const abs = resolveArg(globBase(a), cmd, ctx);
    if (abs === undefined) return { id: 'rm-outside-project', why: `a recursive delete of ${a}, a path autodeck cannot resolve` };
    if (abs === '/' || abs === resolve(ctx.home) || !inside(ctx.projectDir, abs) || abs === resolve(ctx.projectDir)) {
      return { id: 'rm-outside-project', why: `a recursive delete of ${a}, outside the project or the project itself` };
    }
  }
  return undefined;
}

/** git's subcommand and its arguments, past global options (`git -C dir push -f`). */
function gitSub(cmd: SimpleCommand): { sub: string; args: string[] } | undefined {
  const { program, args } = words(cmd);
  if (program !== 'git') return undefined;
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += GIT_VALUE_OPTS.has(args[i]!) ? 2 : 1;
  return args[i] === undefined ? undefined : { sub: args[i]!, args: args.slice(i + 1) };
}

function gitPushForce(cmd: SimpleCommand): BuiltinHit | undefined {
  const git = gitSub(cmd);
  if (git?.sub !== 'push') return undefined;
  const forced = git.args.find((a) =>
    a === '--force' || a.startsWith('--force-with-lease') || a === '--force-if-includes' || a === '--mirror'
    || (/^-[a-zA-Z]+$/.test(a) && a.includes('f')) || /^\+[^+]/.test(a));
  return forced ? { id: 'git-push-force', why: `a forced push (git push ${forced})` } : undefined;
}

function gitResetHard(cmd: SimpleCommand): BuiltinHit | undefined {
  const git = gitSub(cmd);
  return git?.sub === 'reset' && git.args.includes('--hard') ? { id: 'git-reset-hard', why: 'git reset --hard discards uncommitted work' } : undefined;
}

/** `curl … | sh`, `bash <(curl …)`, `sh -c "$(wget -O- …)"`. */
function networkPipe(cmds: readonly SimpleCommand[]): BuiltinHit | undefined {
  const isNet = (c: SimpleCommand) => NETWORK.has(words(c).program);
  const isShell = (c: SimpleCommand) => INTERPRETERS.has(words(c).program);
  for (const c of cmds) {
    if (isShell(c) && c.stage > 0 && cmds.some((d) => d.pipeline === c.pipeline && d.stage < c.stage && isNet(d))) {
      return { id: 'network-pipe-shell', why: `a download piped into ${words(c).program}` };
    }
    if (isShell(c) && (c.substituted ?? []).some(isNet)) return { id: 'network-pipe-shell', why: `a download run by ${words(c).program}` };
  }
  return undefined;
}

function writesOutside(paths: readonly { path: string; cmd?: SimpleCommand }[], ctx: PolicyContext): BuiltinHit | undefined {
  for (const { path, cmd } of paths) {
    if (DEVICES.test(path)) continue;
    const abs = cmd ? resolveArg(path, cmd, ctx) : absolutePath(path, ctx, ctx.cwd);
    if (abs === undefined) continue; // `> $LOG`: unknown, not refused (a redirection is no delete)
    if (inside(ctx.projectDir, abs) || ctx.tempDirs.some((t) => inside(t, abs))) continue;
    return { id: 'write-outside-project', why: `a write to ${path}, outside the project` };
  }
  return undefined;
}

/** The built-in deny this request runs into, if any (the first found). */
export function builtinDeny(req: ApprovalRequest, ctx: PolicyContext): BuiltinHit | undefined {
  if (req.tool === 'Bash' && req.command !== undefined) {
    const top = splitCommand(req.command);
    const all = top.flatMap((c) => [c, ...(c.substituted ?? [])]);
    for (const c of all) {
      const hit = rmOutside(c, ctx) ?? gitPushForce(c) ?? gitResetHard(c);
      if (hit) return hit;
    }
    const piped = networkPipe(top);
    if (piped) return piped;
    const redirected = all.flatMap((c) => [
      ...c.writes.map((path) => ({ path, cmd: c })),
      ...(words(c).program === 'tee' ? c.words.slice(1).filter((a) => !a.startsWith('-')).map((path) => ({ path, cmd: c })) : []),
    ]);
    return writesOutside(redirected, ctx);
  }
  if (req.path !== undefined && ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'].includes(req.tool)) {
    return writesOutside([{ path: req.path }], ctx);
  }
  return undefined;
}
