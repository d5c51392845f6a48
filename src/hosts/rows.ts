import type { DeckRow } from '../deck/deck.js';
import { shortAge } from '../deck/cells.js';
import { isFailure, type HostIssue } from './issue.js';
import type { HostSnapshot } from './poller.js';
import { loopRowOf } from './remote.js';
import { remoteClaudeEntry } from './claudeRemote.js';
import { CLAUDE_ROW_PREFIX } from '../claudeSessions/rowActions.js';

/**
 * The table's rows of one host, from what is known of it (pure). Row keys are the host's
 * label and the module's path on it (`gpu<TAB>/home/me/AiTasks/x`): a path of this machine
 * starts with `/`, so the two never meet.
 */

const SEP = '\t';

/** A Claude Code session's place in a host's row keys: after the host, where a module's path goes (a path starts with `/`). */
export const claudeRowDir = (sessionKey: string): string => `${CLAUDE_ROW_PREFIX}${sessionKey}`;

export function remoteKey(label: string, dir: string): string {
  return `${label}${SEP}${dir}`;
}

/** The host's own row. */
export function hostKey(label: string): string {
  return `${label}${SEP}`;
}

/** A remote row's host and path ('' for a host's own row); undefined for a row of this machine. */
export function parseKey(key: string): { host: string; dir: string } | undefined {
  if (key.startsWith('/')) return undefined;
  const at = key.indexOf(SEP);
  return at < 0 ? undefined : { host: key.slice(0, at), dir: key.slice(at + 1) };
}

/** Per row key, the row last made and what it was made from: a row that did not change keeps its identity. */
export type RowMemo = Map<string, { sig: string; row: DeckRow }>;

/**
 * A host's rows: its modules with their loops (and loops outside its roots), or, when it
 * cannot be read, one row saying why and the loops it had when last read, marked stale
 * with their age. A host with nothing to show keeps one row, so it does not vanish.
 */
export function hostRows(snap: HostSnapshot, now: number, memo: RowMemo): { rows: DeckRow[]; memo: RowMemo } {
  const label = snap.entry.label;
  const next: RowMemo = new Map();
  const rows: DeckRow[] = [];
  const keep = (sig: string, make: () => DeckRow): void => {
    const row = make();
    const old = memo.get(row.key);
    const chosen = old && old.sig === sig ? old.row : row;
    next.set(row.key, { sig, row: chosen });
    rows.push(chosen);
  };
  const issue = snap.issue;
  const failing = issue !== undefined && isFailure(issue.kind);
  const status = snap.status;
  const staleFor = failing && status && snap.answeredAt !== undefined ? shortAge(now - snap.answeredAt) : undefined;
  if (issue) keep(JSON.stringify(['host', issue]), () => ownRow(label, issue));
  if (!status || (issue && !failing)) return { rows, memo: next };
  const loops = new Map(status.loops.map((l) => [l.taskDir, l]));
  const signature = (parts: unknown[]): string => JSON.stringify(parts, (k, v: unknown) => (k === 'elapsedMs' || k === 'activeMs' ? undefined : v));
  if (!staleFor) {
    for (const m of status.modules) {
      const l = loops.get(m.dir);
      loops.delete(m.dir);
      keep(signature([m, l, snap.skewMs]), () => ({
        key: remoteKey(label, m.dir), name: m.name, lifecycle: m.lifecycle, host: label, here: false,
        loop: l ? loopRowOf(l, snap.skewMs) : undefined, ownerAlive: l?.owner?.alive === true, lastRun: m.lastRun,
      }));
    }
  }
  // Loops outside the roots (or all of them, stale): by name, after the modules.
  for (const l of [...loops.values()].sort((a, b) => String(a.taskName).localeCompare(String(b.taskName)))) {
    keep(signature([l, snap.skewMs, staleFor]), () => ({
      key: remoteKey(label, l.taskDir), name: String(l.taskName || l.taskDir), lifecycle: 'unknown', host: label, here: false,
      loop: loopRowOf(l, snap.skewMs), ownerAlive: l.owner?.alive === true, ...(staleFor ? { staleFor } : {}),
    }));
  }
  // Claude Code's own sessions there (a session that is the agent of a loop there is that loop's row)
  for (const c of status.claude?.sessions ?? []) {
    if (c.loop) continue;
    keep(JSON.stringify([c, snap.skewMs, staleFor, status.home]), () => {
      const entry = remoteClaudeEntry(c, snap.skewMs, now);
      return {
        key: remoteKey(label, claudeRowDir(entry.session.key)), name: entry.session.name || entry.session.id || entry.session.key, lifecycle: 'unknown',
        host: label, here: false, ownerAlive: true, claude: entry, ...(status.home ? { home: status.home } : {}), ...(staleFor ? { staleFor } : {}),
      };
    });
  }
  if (rows.length === 0) {
    const empty: HostIssue = { kind: 'empty', message: status.modules.length === 0 ? 'no task modules under its roots' : 'no loops' };
    keep(JSON.stringify(['host', empty]), () => ownRow(label, empty));
  }
  return { rows, memo: next };
}

function ownRow(label: string, issue: HostIssue): DeckRow {
  return { key: hostKey(label), name: label, lifecycle: 'unknown', host: label, here: false, ownerAlive: false, hostIssue: issue };
}
