import { useEffect, useState } from 'react';
import { Box, Text } from 'ink';
import type { DeckRow } from '../src/deck/deck.js';
import { formatEvent, printable } from '../src/format/event.js';
import { kindWord, needLine } from '../src/claudeSessions/view.js';
import { useModel } from './hooks/useModel.js';
import { useEvents } from './hooks/useEvents.js';
import { useTheme } from './theme.js';

/** How often the recent screen of a running Claude Code session is read again while shown. */
const SCREEN_EVERY_MS = 3000;

/**
 * A Claude Code session in depth: who it is (kind, ids, folder), what Claude Code says of
 * it (its own words, unknown fields too), what it needs, its adoption, its recent screen
 * (`claude logs`, drawn as text), and its events in autodeck's log.
 */
export function ClaudeDetail({ row, height, width }: { row: DeckRow & { claude: NonNullable<DeckRow['claude']> }; height: number; width: number }) {
  const theme = useTheme();
  const model = useModel();
  const { session: s, view, adopted } = row.claude;
  const [screen, setScreen] = useState<string[]>([]);
  const events = useEvents(3, row.key, height > 10);
  useEffect(() => {
    let gone = false;
    const read = () => void model.claude?.screen(row.key).then((lines) => {
      if (!gone) setScreen(lines);
    });
    read();
    const timer = view.live ? setInterval(read, SCREEN_EVERY_MS) : undefined;
    return () => {
      gone = true;
      if (timer) clearInterval(timer);
    };
  }, [model, row.key, view.live]);
  const facts: string[] = [
    `${kindWord(s.kind)} ${s.id || '(interactive)'}  session ${s.sessionId || '-'}${s.pid !== undefined ? `  pid ${s.pid}` : ''}`,
    `folder ${s.cwd || '-'}`,
    `Claude Code says: status ${s.status ?? '-'}${s.waitingFor ? ` (${s.waitingFor})` : ''}, state ${s.state ?? '-'}${s.detail ? `, ${s.detail}` : ''}`,
  ];
  if (view.need) facts.push(`needs: ${needLine(view.need)}${view.need.requestId !== undefined ? '  (a: answer)' : view.phase === 'needs_you' ? '  (attach to answer)' : ''}`);
  if (adopted) facts.push(`adopted: ${adopted.turns}/${adopted.maxIterations} turns, timeout ${adopted.timeoutMinutes} min, ${adopted.status}${adopted.quotaResetAt ? ` until ${adopted.quotaResetAt}` : ''}`);
  const extra = Object.entries(s.extra);
  if (extra.length > 0) facts.push(`also: ${extra.map(([k, v]) => `${k}=${v}`).join(', ')}`);
  const body = Math.max(0, height - 1 - facts.length - (events.length > 0 ? events.length + 1 : 0));
  const tail = screen.slice(Math.max(0, screen.length - body));
  return (
    <Box flexDirection="column" height={height} overflowY="hidden">
      <Text bold color={theme.accent} wrap="truncate-end">{`── ${printable(row.name)} (Claude Code) ${'─'.repeat(Math.max(0, width - printable(row.name).length - 18))}`}</Text>
      {facts.map((f, i) => <Text key={`f${i}`} wrap="truncate-end">{printable(f)}</Text>)}
      {tail.map((l, i) => <Text key={`s${i}`} dimColor={theme.dim} wrap="truncate-end">{printable(l) || ' '}</Text>)}
      {events.length > 0 ? <Text bold dimColor={theme.dim} wrap="truncate-end">events</Text> : null}
      {events.map((e) => <Text key={`e${e.id ?? e.at}`} wrap="truncate-end">{formatEvent(e, row.name)}</Text>)}
    </Box>
  );
}
