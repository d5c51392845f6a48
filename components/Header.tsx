import { memo } from 'react';
import { hostname } from 'node:os';
import { Text } from 'ink';
import type { DeckRow } from '../src/deck/deck.js';
import { countText, hostCounts, stateCounts } from '../src/deck/header.js';
import { printable } from '../src/format/event.js';
import { useTheme } from './theme.js';

const HOST = printable(hostname());

/**
 * The top line: the title, the host (loops are per machine), and how many modules need
 * you, failed, run and are done — the groups of `status --format tmux` (k9s/htop style).
 * Compact in a side pane: `?1 ▶3`, the host last so a narrow pane cuts it first.
 */
export const Header = memo(function Header({ title, rows, filter, compact }: { title: string; rows: readonly DeckRow[]; filter: string; compact: boolean }) {
  const theme = useTheme();
  const counts = stateCounts(rows);
  const filterText = filter ? ` · filter "${printable(filter)}"` : '';
  // Several hosts: each one's counts after the totals (in a side pane, only a host in trouble).
  const perHost = rows.some((r) => r.host !== undefined) ? hostCounts(rows).filter((h) => !compact || h.issue) : [];
  return (
    <Text wrap="truncate-end">
      <Text bold color={theme.accent}>{compact ? title : `${title} · ${HOST} · ${rows.filter((r) => !r.hostIssue).length} modules`}</Text>
      {counts.map((c) => (
        <Text key={c.word}>
          {compact ? ' ' : '  '}
          <Text color={theme.tone[c.tone]} inverse={Boolean(c.loud)} bold={Boolean(c.loud)}>{countText(c, compact)}</Text>
        </Text>
      ))}
      {perHost.length > 0 ? <Text dimColor={theme.dim}>{compact ? ' │' : '  │'}</Text> : null}
      {perHost.map((h) => (
        <Text key={h.host}>
          {` ${printable(h.host)}`}
          {h.issue
            ? <Text color={theme.tone[h.issue.tone]} inverse={Boolean(h.issue.loud)}>{compact ? h.issue.glyph : ` ${h.issue.glyph} ${h.issue.word}`}</Text>
            : h.counts.map((c) => <Text key={c.word} color={theme.tone[c.tone]}>{` ${countText(c, true)}`}</Text>)}
        </Text>
      ))}
      <Text>{`${compact ? ` · ${HOST}` : ''}${filterText}`}</Text>
    </Text>
  );
});
