import type { Store } from '../store/index.js';
import { printable } from '../format/event.js';
import { claudeProgram, claudeSessionJson, readClaudeSessions, type ClaudeSessionJson } from './json.js';
import { claudeTaskDir } from './transitions.js';

/**
 * `history`'s part (it closes `store`) on Claude Code's own background sessions: those that ended and that
 * Claude Code still lists (until `claude rm`), besides the adopted ones, which are runs of
 * their own in the table above. Claude Code keeps no end time: they are listed by start.
 */
export async function endedClaudeSessions(store: Store, agent: readonly string[], now = Date.now(), env: NodeJS.ProcessEnv = process.env): Promise<{ sessions: ClaudeSessionJson[]; lines: string[] }> {
  try {
    return await ended(store, agent, now, env);
  } finally {
    store.close();
  }
}

async function ended(store: Store, agent: readonly string[], now: number, env: NodeJS.ProcessEnv): Promise<{ sessions: ClaudeSessionJson[]; lines: string[] }> {
  const { entries } = await readClaudeSessions(store, claudeProgram(agent), env);
  const ended = entries.filter((e) => !e.view.live && e.session.id && store.runs.count(claudeTaskDir(e.session.sessionId)) === 0);
  const sessions = ended.map((e) => claudeSessionJson(e, now)).sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? ''));
  const lines = sessions.length === 0 ? [] : ['', 'Claude Code sessions that ended (claude rm removes them from this list):',
    ...sessions.map((s) => printable(`${s.startedAt ?? '-'}  ${s.name || s.id}  ${s.state}  ${s.id}  ${s.cwd}`))];
  return { sessions, lines };
}
