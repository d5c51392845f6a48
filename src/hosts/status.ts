import { Writable } from 'node:stream';
import { CliError, EXIT, line, type CommandContext } from '../commands/context.js';
import { LOCAL_HOST } from './spec.js';
import { HostPoller, type HostSnapshot } from './poller.js';
import { sshConfigOf } from './sshConfig.js';
import { ownVersion } from '../ownPackage.js';
import { remoteClaudeJson } from './claudeRemote.js';

/** One host's line in `hosts` of `status --json --host`. */
export interface HostStatusJson {
  host: string;
  /** `ok`, or why its loops are missing: unreachable, no-autodeck, too-old, error. */
  state: string;
  message?: string;
  version?: string;
}

/**
 * `autodeck status [--json] --host H...`: this machine's loops (unless --no-local) and each
 * host's, read at once in parallel, each loop and recent run with its `host`, and a `hosts`
 * list saying which could not be read and why. Exit codes as `status`: a host that cannot
 * be read is said (in `hosts`, and on stderr), not an error of the command.
 */
export async function statusOfHosts(ctx: CommandContext): Promise<number> {
  const format = ctx.flags.format === undefined ? (ctx.flags.json === true ? 'json' : 'text') : String(ctx.flags.format);
  if (format !== 'json' && format !== 'text') throw new CliError(`autodeck: status --host gives --json or text, not --format ${JSON.stringify(format)}`, EXIT.usage);
  const local: LocalStatus = ctx.settings.local ? await localStatus(ctx) : { loops: [], recent: [] };
  const ssh = sshConfigOf(ctx.settings, process.env);
  const snapshots = await Promise.all(ctx.settings.hosts.map((entry) => readOnce(new HostPoller(entry, { ssh, baseMs: 60_000, localVersion: ownVersion() }))));
  const tag = (host: string) => (o: Record<string, unknown>): Record<string, unknown> => ({ ...o, host });
  const loops = [...local.loops.map(tag(LOCAL_HOST))];
  const recent = [...local.recent.map(tag(LOCAL_HOST))];
  const hosts: HostStatusJson[] = ctx.settings.local ? [{ host: LOCAL_HOST, state: 'ok', version: ownVersion() }] : [];
  const claudeSessions = [...(local.claudeSessions ?? []).map(tag(LOCAL_HOST))];
  for (const s of snapshots) {
    const label = s.entry.label;
    if (!s.issue) claudeSessions.push(...remoteClaudeJson(s, Date.now()));
    if (s.status && !s.issue) {
      loops.push(...(s.status.loops as unknown as Record<string, unknown>[]).map(tag(label)));
      recent.push(...s.status.recent.map(tag(label)));
    }
    hosts.push({ host: label, state: s.issue ? s.issue.kind : 'ok', ...(s.issue ? { message: s.issue.message } : {}), ...(s.version ? { version: s.version } : {}) });
    if (s.issue) line(ctx.stderr, `autodeck: ${label}: ${s.issue.kind}: ${s.issue.message}`);
  }
  recent.sort((a, b) => String(b.endedAt ?? '').localeCompare(String(a.endedAt ?? '')));
  if (format === 'json') {
    // Claude Code's own sessions: this machine's and every host's that lists them
    const claude = local.claudeSessions || claudeSessions.length > 0 ? { claudeSessions, ...(local.claudeNote ? { claudeNote: local.claudeNote } : {}) } : {};
    line(ctx.stdout, JSON.stringify({ loops, recent, ...claude, hosts }, null, 2));
    return EXIT.ok;
  }
  const { printable, duration } = await import('../format/event.js');
  const { countGroups, countText, groupById, stateDef } = await import('../deck/states.js');
  // each loop's state as `status` says it (src/deck/states.ts): a live loop waiting on a person needs you
  const states = loops.map((l) => (l.needsYou && l.status !== 'failed' ? stateDef('derived', 'needs_you') : stateDef('loop', String(l.status))));
  if (loops.length === 0) line(ctx.stdout, 'No active loops.');
  else line(ctx.stdout, `${loops.length} active loop${loops.length === 1 ? '' : 's'}: ${countGroups(states).map((c) => countText(c, false)).join('  ')}`);
  for (const [i, l] of loops.entries()) {
    const step = l.step ? `${String(l.step)} ${String(l.result)} -> ${String(l.next)}` : '-';
    const state = `${groupById(states[i]!.group).glyph} ${states[i]!.word}`;
    line(ctx.stdout, printable(`${String(l.host)}  ${String(l.taskName)}  ${state}  ${String(l.iteration)}/${String(l.maxIterations)}  ${step}  ` +
      `${duration(Number(l.activeMs))}/${String(l.timeoutMinutes)}m  ${String(l.session)}`));
  }
  // Claude Code's own sessions (a loop's agent is that loop's line), each with its host
  const sessions = claudeSessions.filter((c) => c.loop === null || c.loop === undefined);
  if (sessions.length > 0) line(ctx.stdout, '\nClaude Code sessions:');
  for (const c of sessions) {
    const id = String(c.id || String(c.sessionId).slice(0, 8));
    line(ctx.stdout, printable(`${String(c.host)}  ${String(c.name || id)}  ${String(c.state)}  ${id}  ${String(c.cwd)}`));
    const needs = c.needs as { text?: unknown } | null;
    if (needs && typeof needs.text === 'string') line(ctx.stdout, `  ? ${printable(needs.text).slice(0, 200)}`);
  }
  for (const h of hosts) if (h.state !== 'ok') line(ctx.stdout, printable(`${h.host}: ${h.state}: ${h.message ?? ''}`));
  return EXIT.ok;
}

interface LocalStatus {
  loops: Record<string, unknown>[];
  recent: Record<string, unknown>[];
  claudeSessions?: Record<string, unknown>[];
  claudeNote?: string;
}

/** This machine's `status --json`, as the status command makes it. */
async function localStatus(ctx: CommandContext): Promise<LocalStatus> {
  let text = '';
  const stdout = new Writable({
    write(chunk: Buffer | string, _e, done) {
      text += chunk.toString();
      done();
    },
  });
  const { status } = await import('../commands/status.js');
  const flags = { ...ctx.flags, json: true, format: undefined, host: undefined, local: undefined, eventsSince: undefined, modules: undefined };
  await status({ ...ctx, flags, stdout });
  return JSON.parse(text) as LocalStatus;
}

/** One look at a host: its first answer, or why there is none. */
function readOnce(poller: HostPoller): Promise<HostSnapshot> {
  return new Promise((resolve) => {
    poller.on('change', () => {
      const s = poller.snapshot;
      if (s.issue?.kind === 'connecting') return;
      poller.close();
      resolve(s);
    });
    poller.start();
  });
}
