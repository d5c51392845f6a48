import { useRef } from 'react';
import { Box, Text } from 'ink';
import type { DeckRow } from '../src/deck/deck.js';
import { visibleWindow, type Column } from '../src/deck/layout.js';
import type { CellLimits } from '../src/deck/cells.js';
import { Row } from './Row.js';
import { useTheme } from './theme.js';
import { useNow } from './hooks/useNow.js';

interface TableProps {
  rows: readonly DeckRow[];
  columns: readonly Column[];
  selected: number;
  /** Lines available, the header included. */
  height: number;
  limits: CellLimits;
  emptyText: string;
}

const isLive = (r: DeckRow): boolean => r.loop !== undefined && r.loop.status !== 'failed' && r.loop.status !== 'suspended';

/** The module table: a header and as many rows as fit, scrolled to keep the selection in view. */
export function Table({ rows, columns, selected, height, limits, emptyText }: TableProps) {
  // The clock lives here, not at the root: a tick re-renders the table, not the whole screen.
  // Elapsed times tick each second while a loop runs; otherwise only "ended 3m ago" moves.
  const now = useNow(rows.some(isLive) ? 1000 : 30_000);
  const theme = useTheme();
  const start = useRef(0);
  const capacity = Math.max(1, height - 1);
  const more = rows.length > capacity;
  // A scrolled table gives one line to say so.
  const win = visibleWindow(rows.length, Math.max(0, selected), more ? Math.max(1, capacity - 1) : capacity, start.current);
  start.current = win.start;
  return (
    <Box flexDirection="column">
      <Box>
        <Text>{'  '}</Text>
        {columns.map((c) => (
          <Box key={c.id} {...(c.width === undefined ? { flexGrow: 1, flexBasis: 0, minWidth: 6, paddingRight: 1 } : { width: c.width, flexShrink: 0, paddingRight: 1 })}>
            <Text bold dimColor={theme.dim} wrap="truncate-end">{c.title}</Text>
          </Box>
        ))}
      </Box>
      {rows.length === 0 ? <Text dimColor={theme.dim} wrap="truncate-end">{`  ${emptyText}`}</Text> : null}
      {rows.slice(win.start, win.end).map((r, i) => (
        <Row key={r.key} row={r} columns={columns} selected={win.start + i === selected} now={isLive(r) || r.lastRun ? now : 0} limits={limits} />
      ))}
      {more ? <Text dimColor={theme.dim} wrap="truncate-end">{`  ${win.start + 1}-${win.end} of ${rows.length}`}</Text> : null}
    </Box>
  );
}
