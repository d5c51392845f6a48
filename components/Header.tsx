import { memo } from 'react';
import { hostname } from 'node:os';
import { Text } from 'ink';
import type { DeckRow } from '../src/deck/deck.js';
import { headerParts } from '../src/deck/header.js';
import { printable } from '../src/format/event.js';
import { useTheme } from './theme.js';

const HOST = printable(hostname());

/**
 * The top line: the title, the host (loops are per machine), and how many modules are in
 * each state group (src/deck/states.ts: the same groups as the tmux segment and `status`;
 * they add up to the modules). Compact in a side pane, or where the words would be cut:
 * `?1 ▶3`, the host last.
 */
export const Header = memo(function Header({ title, rows, filter, width, side }: { title: string; rows: readonly DeckRow[]; filter: string; width: number; side: boolean }) {
  const theme = useTheme();
  const { parts, compact } = headerParts(title, HOST, rows, width, side);
  const filterText = filter ? ` · filter "${printable(filter)}"` : '';
  return (
    <Text wrap="truncate-end">
      <Text bold color={theme.accent}>{parts.title}</Text>
      {parts.counts.map(({ text, count }) => (
        <Text key={count.group.id}>
          {compact ? ' ' : '  '}
          <Text color={theme.tone[count.group.tone]} inverse={Boolean(count.group.loud)} bold={Boolean(count.group.loud)}>{text}</Text>
        </Text>
      ))}
      <Text>{`${parts.tail}${filterText}`}</Text>
    </Text>
  );
});
