import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolveProgram } from '../agents/command.js';
import {
  CLAUDE_CODE_NEWEST, CLAUDE_CODE_OLDEST, CLAUDE_FEATURES, atLeast, outsideRangeNotes, parseVersion, versionVerdict, type RangeVerdict,
} from '../agents/claudeVersion.js';
import { EXIT, line, type CommandContext } from './context.js';

/**
 * `autodeck doctor`: what this machine gives autodeck. The agent program and, for Claude
 * Code, its version against the tested range and what will not work outside it; whether
 * the state database opens (read-only: doctor changes nothing). Exit 0 when all is well,
 * 1 when something needs the user.
 */

export interface DoctorFacts {
  agent: { program: string; profile: string; path?: string | undefined };
  /** `claude --version` as printed, or why it could not be had. */
  claude?: { version?: string | undefined; error?: string | undefined } | undefined;
  permissionMode: string;
  db: { path: string; exists: boolean; schema?: number | undefined; known: number; check?: string | undefined; error?: string | undefined };
}

export interface DoctorCheck {
  name: 'agent' | 'claude' | 'database';
  ok: boolean;
  /** One line: what was found. */
  summary: string;
  /** What follows from it (what will not work, what to do). */
  notes: string[];
  verdict?: RangeVerdict | undefined;
  version?: string | undefined;
}

/** The checks, from the facts. Pure. */
export function doctorChecks(f: DoctorFacts): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const { agent } = f;
  if (!agent.path) {
    checks.push({ name: 'agent', ok: false, summary: `agent program ${JSON.stringify(agent.program)} not found (profile ${agent.profile})`, notes: ['install it, or set the agent with --agent, AUTODECK_AGENT or "agent" in .autodeck.json'] });
  } else {
    checks.push({ name: 'agent', ok: true, summary: `agent program ${agent.path} (profile ${agent.profile})`, notes: [] });
  }
  if (agent.profile === 'claude' && agent.path) checks.push(claudeCheck(f));
  checks.push(dbCheck(f.db));
  return checks;
}

function claudeCheck(f: DoctorFacts): DoctorCheck {
  const range = `the tested range is ${CLAUDE_CODE_OLDEST} to ${CLAUDE_CODE_NEWEST}`;
  const printed = f.claude?.version;
  const v = printed ? parseVersion(printed) : undefined;
  if (!v) {
    const why = f.claude?.error ?? `it printed ${JSON.stringify(printed ?? '')}`;
    return { name: 'claude', ok: false, summary: `Claude Code version unknown: ${why}`, notes: [range] };
  }
  const version = v.join('.');
  const verdict = versionVerdict(v);
  const notes = [...outsideRangeNotes(v)];
  for (const feature of CLAUDE_FEATURES) {
    if (!atLeast(v, feature.since)) notes.push(`${feature.what}: not in this version (${feature.since} and later); ${feature.fallback}`);
  }
  notes.push(`supervised sessions' permission mode: ${f.permissionMode === 'inherit' ? "Claude Code's own default (claudePermissionMode inherit)" : f.permissionMode}; the approval policy holds in every mode`);
  const where = verdict === 'inside' ? `inside ${range.replace('the tested range is ', 'the tested range, ')}` : `outside ${range.replace('the tested range is ', 'the tested range, ')}`;
  return { name: 'claude', ok: verdict === 'inside', summary: `Claude Code ${version}: ${where}`, notes, verdict, version };
}

function dbCheck(db: DoctorFacts['db']): DoctorCheck {
  if (!db.exists) return { name: 'database', ok: true, summary: `state database ${db.path}: not there yet (the first loop creates it)`, notes: [] };
  if (db.error) return { name: 'database', ok: false, summary: `state database ${db.path} does not open: ${db.error}`, notes: ['another autodeck may hold it, or the file is damaged: move it aside and autodeck starts a new one'] };
  if (db.check !== undefined && db.check !== 'ok') return { name: 'database', ok: false, summary: `state database ${db.path} is damaged: ${db.check}`, notes: ['move it aside and autodeck starts a new one'] };
  if (db.schema !== undefined && db.schema > db.known) {
    return { name: 'database', ok: false, summary: `state database ${db.path} was written by a newer autodeck (schema ${db.schema}, this one knows ${db.known})`, notes: ['update autodeck'] };
  }
  const behind = db.schema !== undefined && db.schema < db.known ? `; this autodeck brings it to schema ${db.known} on its next start` : '';
  return { name: 'database', ok: true, summary: `state database ${db.path}: opens (schema ${db.schema ?? '?'}${behind})`, notes: [] };
}

export async function doctor(ctx: CommandContext): Promise<number> {
  const facts = await gatherFacts(ctx);
  const checks = doctorChecks(facts);
  const ok = checks.every((c) => c.ok);
  if (ctx.flags.json === true) {
    line(ctx.stdout, JSON.stringify({ ok, range: { oldest: CLAUDE_CODE_OLDEST, newest: CLAUDE_CODE_NEWEST }, checks }));
  } else {
    for (const c of checks) {
      line(ctx.stdout, `${c.ok ? 'ok  ' : 'fix '} ${c.summary}`);
      for (const n of c.notes) line(ctx.stdout, `     ${n}`);
    }
  }
  return ok ? EXIT.ok : EXIT.other;
}

async function gatherFacts(ctx: CommandContext): Promise<DoctorFacts> {
  const { settings } = ctx;
  const program = settings.agent[0] ?? '';
  const path = resolveProgram(program, process.env, ctx.cwd);
  const facts: DoctorFacts = {
    agent: { program, profile: settings.agentProfile, path },
    permissionMode: settings.claudePermissionMode ?? 'inherit',
    db: await dbFacts(settings.db),
  };
  if (settings.agentProfile === 'claude' && path) facts.claude = await claudeVersion(path);
  return facts;
}

function claudeVersion(path: string): Promise<{ version?: string; error?: string }> {
  return new Promise((resolve) => {
    execFile(path, ['--version'], { timeout: 20_000, env: { ...process.env, DISABLE_AUTOUPDATER: '1' } }, (err, stdout) => {
      const first = String(stdout).trim().split('\n')[0] ?? '';
      if (err && !first) resolve({ error: `\`${path} --version\` failed: ${err.message.split('\n')[0]}` });
      else resolve({ version: first.slice(0, 200) });
    });
  });
}

async function dbFacts(path: string): Promise<DoctorFacts['db']> {
  const { MIGRATIONS } = await import('../store/migrations.js');
  const known = MIGRATIONS.length;
  if (!existsSync(path)) return { path, exists: false, known };
  try {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(path, { readonly: true, fileMustExist: true, timeout: 2000 });
    try {
      const schema = db.pragma('user_version', { simple: true }) as number;
      const check = String(db.pragma('quick_check', { simple: true }));
      return { path, exists: true, known, schema, check };
    } finally {
      db.close();
    }
  } catch (err) {
    return { path, exists: true, known, error: (err instanceof Error ? err.message : String(err)).split('\n')[0] };
  }
}
