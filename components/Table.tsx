import { useRef } from 'react';
import { Box, Text } from 'ink';
import type { DeckRow } from '../src/deck/deck.js';
import { columnWidths, visibleWindow, type Column } from '../src/deck/layout.js';
import { cell } from './cell.js';
import type { CellLimits } from '../src/deck/cells.js';
import { Row } from './Row.js';
import { useTheme } from './theme.js';

interface TableProps {
  rows: readonly DeckRow[];
  columns: readonly Column[];
  /** The terminal's width. */
  width: number;
  selected: number;
  /** Lines available, the header included. */
  height: number;
  now: number;
  limits: CellLimits;
  emptyText: string;
}

const isLive = (r: DeckRow): boolean => r.loop !== undefined && r.loop.status !== 'failed' && r.loop.status !== 'suspended';

/** The module table: a header and as many rows as fit, scrolled to keep the selection in view. */
export function Table({ rows, columns, width, selected, height, now, limits, emptyText }: TableProps) {
  const theme = useTheme();
  const start = useRef(0);
  const capacity = Math.max(1, height - 1);
  const more = rows.length > capacity;
  // A scrolled table gives one line to say so.
  const win = visibleWindow(rows.length, Math.max(0, selected), more ? Math.max(1, capacity - 1) : capacity, start.current);
  start.current = win.start;
  const widths = columnWidths(columns, width);
  return (
    <Box flexDirection="column">
      <Text bold dimColor={theme.dim} wrap="truncate-end">{`  ${columns.map((c, i) => cell(c.title, widths[i]!)).join('')}`}</Text>
      {rows.length === 0 ? <Text dimColor={theme.dim} wrap="truncate-end">{`  ${emptyText}`}</Text> : null}
      {rows.slice(win.start, win.end).map((r, i) => (
        <Row key={r.key} row={r} columns={columns} widths={widths} selected={win.start + i === selected} now={isLive(r) || r.lastRun ? now : 0} limits={limits} />
      ))}
      {more ? <Text dimColor={theme.dim} wrap="truncate-end">{`  ${win.start + 1}-${win.end} of ${rows.length}`}</Text> : null}
    </Box>
  );
}
