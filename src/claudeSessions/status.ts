import type { Store } from '../store/index.js';
import { printable } from '../format/event.js';
import { claudeProgram, claudeSessionJson, readClaudeSessions, type ClaudeSessionJson } from './json.js';
import { kindWord, needLine } from './view.js';

/** How old a session is, in one unit: `45s`, `3m`, `2h`, `4d`. */
export function ageText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** `status`'s part on Claude Code's own sessions: the JSON objects and the text lines. */
export async function claudeStatus(store: Store, agent: readonly string[], now: number, env: NodeJS.ProcessEnv = process.env): Promise<{ sessions: ClaudeSessionJson[]; note: string; lines: string[] }> {
  const { entries, note } = await readClaudeSessions(store, claudeProgram(agent), env);
  const sessions = entries.map((e) => claudeSessionJson(e, now));
  const lines: string[] = [];
  const shown = sessions.filter((s) => s.loop === null);
  if (shown.length > 0 || note) {
    lines.push('', 'Claude Code sessions:');
    if (note) lines.push(printable(`  (${note})`));
  }
  for (const s of shown) {
    const adopted = s.adopted ? `  adopted ${s.adopted.iteration}/${s.adopted.maxIterations}` : '';
    const age = s.ageMs === null ? '-' : ageText(s.ageMs);
    lines.push(printable(`${s.name || s.id || s.sessionId.slice(0, 8)}  ${s.state}  ${kindWord(s.kind)} ${s.id || s.sessionId.slice(0, 8)}  ${age}  ${s.cwd}${adopted}`));
    if (s.needs) lines.push(`  ? ${printable(needLine({ reason: s.needs.reason as never, text: s.needs.text })).slice(0, 200)}`);
  }
  return { sessions, note, lines };
}
