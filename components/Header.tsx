import { memo } from 'react';
import { hostname } from 'node:os';
import { Text } from 'ink';
import type { DeckRow } from '../src/deck/deck.js';
import { countText, stateCounts } from '../src/deck/header.js';
import { printable } from '../src/format/event.js';
import { useTheme } from './theme.js';

const HOST = printable(hostname());

/** `7 modules`, and `· 2 Claude Code sessions` when some rows are Claude Code's own. */
function modulesText(rows: readonly DeckRow[]): string {
  const claude = rows.filter((r) => r.claude).length;
  return `${rows.length - claude} modules${claude > 0 ? ` · ${claude} Claude Code session${claude === 1 ? '' : 's'}` : ''}`;
}

/**
 * The top line: the title, the host (loops are per machine), and how many modules need
 * you, failed, run and are done — the groups of `status --format tmux` (k9s/htop style).
 * Compact in a side pane: `?1 ▶3`, the host last so a narrow pane cuts it first.
 */
export const Header = memo(function Header({ title, rows, filter, compact }: { title: string; rows: readonly DeckRow[]; filter: string; compact: boolean }) {
  const theme = useTheme();
  const counts = stateCounts(rows);
  const filterText = filter ? ` · filter "${printable(filter)}"` : '';
  return (
    <Text wrap="truncate-end">
      <Text bold color={theme.accent}>{compact ? title : `${title} · ${HOST} · ${modulesText(rows)}`}</Text>
      {counts.map((c) => (
        <Text key={c.word}>
          {compact ? ' ' : '  '}
          <Text color={theme.tone[c.tone]} inverse={Boolean(c.loud)} bold={Boolean(c.loud)}>{countText(c, compact)}</Text>
        </Text>
      ))}
      <Text>{`${compact ? ` · ${HOST}` : ''}${filterText}`}</Text>
    </Text>
  );
});
