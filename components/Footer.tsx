import { memo } from 'react';
import { Box, Text } from 'ink';
import type { DeckRow } from '../src/deck/deck.js';
import { COMMANDS, keyLabel } from '../src/keymap.js';
import type { Breakpoint } from '../src/deck/layout.js';
import { useTheme } from './theme.js';

/** Commands a narrow footer leaves to the help overlay: moving is known, the rest is one `?` away. */
const NARROW_HIDDEN = new Set(['up', 'down', 'log', 'history', 'filter', 'forceStop']);
/** Commands for Claude Code's own sessions: in the footer only while one is selected. */
const CLAUDE_ONLY = new Set(['answer', 'prompt']);

/**
 * The footer: every command's key and short label from the command table; unavailable ones
 * dimmed (or left out when narrow). Drawn again only when the selected row or the width changed.
 */
export const Footer = memo(function Footer({ row, breakpoint, width }: { row: DeckRow | undefined; breakpoint: Breakpoint; width: number }) {
  const theme = useTheme();
  const ctx = { row };
  const all = COMMANDS.filter((c) => c.id !== 'down' && (row?.claude !== undefined || !CLAUDE_ONLY.has(c.id))).filter((c) => breakpoint === 'wide' || !NARROW_HIDDEN.has(c.id)).map((c) => {
    const keys = c.id === 'up' ? '↑↓' : keyLabel(c.keys[0]!);
    const label = c.id === 'up' ? 'move' : c.label;
    const off = c.disabled?.(ctx) !== undefined;
    return { id: c.id, text: `${keys} ${label}`, off };
  }).filter((i) => breakpoint !== 'side' || !i.off);
  // Wide but not wide enough for every key: the ones a narrow footer leaves out go first, so `q quit` stays.
  const items = [...all];
  const length = (): number => items.reduce((n, i, k) => n + i.text.length + (k > 0 ? 2 : 0), 0);
  for (const id of ['history', 'filter', 'log', 'forceStop']) {
    if (length() <= width) break;
    const at = items.findIndex((i) => i.id === id);
    if (at >= 0) items.splice(at, 1);
  }
  return (
    <Box>
      <Text wrap="truncate-end">
        {items.map((i, n) => (
          <Text key={i.id} dimColor={i.off && theme.dim} strikethrough={i.off && !theme.dim}>{`${n > 0 ? '  ' : ''}${i.text}`}</Text>
        ))}
      </Text>
    </Box>
  );
});
