import { useMemo } from 'react';
import { Box, Text } from 'ink';
import type { DeckRow } from '../src/deck/deck.js';
import { formatEvent, printable } from '../src/format/event.js';
import { useModel } from './hooks/useModel.js';
import { useScreen } from './hooks/useScreen.js';
import { useEvents } from './hooks/useEvents.js';
import { useTheme } from './theme.js';
import { worktreeNote } from '../src/deck/worktreeNote.js';

/** How the pane's lines are shared out, given `height` lines. */
export function detailBudget(height: number): { screen: number; events: number; summary: number } {
  const body = Math.max(0, height - 1); // its title line
  const events = Math.min(3, Math.floor(body / 4));
  const summary = Math.min(3, Math.floor(body / 5));
  return { screen: Math.max(0, body - events - summary - (events > 0 ? 1 : 0) - (summary > 0 ? 1 : 0)), events, summary };
}

/**
 * The selected module in depth: the live tail of its agent's screen (text from the
 * emulator, so no byte of the agent reaches the terminal), its last events, the head of
 * its `.summary.md`. Never taller than `height`.
 */
export function DetailPane({ row, height, width }: { row: DeckRow; height: number; width: number }) {
  const theme = useTheme();
  const model = useModel();
  const budget = detailBudget(height);
  const screen = useScreen(row.here ? model.screen(row.key) : undefined);
  const events = useEvents(budget.events, row.key, budget.events > 0);
  // Read again when the row changed (a new signal may come with a new summary), not on every screen update.
  const summary = useMemo(() => (budget.summary > 0 ? model.summary(row.key, budget.summary) : []), [model, row, budget.summary]);
  const tail = screen.slice(Math.max(0, screen.length - budget.screen));
  const note = worktreeNote(row);
  const title = printable(note ? `${row.name} · ${note}` : row.name);
  const screenNote = row.here ? (tail.length === 0 ? '(no agent screen)' : undefined) : row.loop ? '(the agent runs in another autodeck; its screen is there)' : '(no loop)';
  return (
    <Box flexDirection="column" height={height} overflowY="hidden">
      <Text bold color={theme.accent} wrap="truncate-end">{`── ${title} ${'─'.repeat(Math.max(0, width - title.length - 4))}`}</Text>
      {budget.screen > 0 && screenNote ? <Text dimColor={theme.dim} wrap="truncate-end">{screenNote}</Text> : null}
      {tail.map((l, i) => (
        <Text key={`s${i}`} wrap="truncate-end">{printable(l) || ' '}</Text>
      ))}
      {budget.events > 0 ? <Text bold dimColor={theme.dim} wrap="truncate-end">events</Text> : null}
      {events.slice(-budget.events).map((e) => (
        <Text key={`e${e.id ?? e.at}`} wrap="truncate-end">{formatEvent(e, row.name)}</Text>
      ))}
      {budget.summary > 0 ? <Text bold dimColor={theme.dim} wrap="truncate-end">.summary.md</Text> : null}
      {summary.map((l, i) => (
        <Text key={`m${i}`} wrap="truncate-end">{l}</Text>
      ))}
    </Box>
  );
}
