import { memo, useMemo, useRef } from 'react';
import { Box, Text } from 'ink';
import type { DeckRow } from '../src/deck/deck.js';
import { cellWidth, columnWidths, cutCell, fitCell, visibleWindow, MARK_WIDTH, type Column } from '../src/deck/layout.js';
import { rowCells, type CellLimits, type RowCells } from '../src/deck/cells.js';
import { useTheme, type Theme } from './theme.js';
import { useNow } from './hooks/useNow.js';
import { bar } from '../src/deck/bar.js';

interface TableProps {
  rows: readonly DeckRow[];
  columns: readonly Column[];
  selected: number;
  /** Lines available, the header included. */
  height: number;
  /** Columns available. */
  width: number;
  limits: CellLimits;
  emptyText: string;
}

const isLive = (r: DeckRow): boolean => r.loop !== undefined && r.loop.status !== 'failed' && r.loop.status !== 'suspended';

/** One cell of a row as drawn: its text cut to the column, its padding, and a style when it has one. */
export interface Segment {
  text: string;
  pad: number;
  color?: string | undefined;
  bold?: boolean | undefined;
  inverse?: boolean | undefined;
}

/** `text` behind a bar of `cells` when the column has one (blank cells when the row has no figure). */
function withBar(text: string, fraction: number | undefined, cells: number | undefined): string {
  if (!cells || text === '') return text;
  return `${fraction === undefined ? ' '.repeat(cells) : bar(fraction, cells)} ${text}`;
}

/** From this fill on, the ctx % cell is drawn in the warning colour. */
const CTX_WARN_PERCENT = 80;

type Styled = Omit<Segment, 'pad'>;

function cellOf(column: Column, c: RowCells, selected: boolean, theme: Theme): Styled {
  switch (column.id) {
    case 'name':
      return { text: c.elsewhere ? `↗ ${c.name}` : c.name, bold: selected, inverse: selected && !theme.accent };
    case 'state':
      // Stalled, quota and failed rows stand out: glyph, word, colour and inverse (which NO_COLOR keeps).
      return { text: `${c.state.glyph} ${c.state.word}`, color: theme.tone[c.state.tone], inverse: Boolean(c.state.loud), bold: Boolean(c.state.loud) };
    case 'iteration':
      return { text: withBar(c.iteration, c.iterationFill, column.bar) };
    case 'elapsed': {
      const text = withBar(c.elapsed, c.elapsedFill, column.bar);
      return c.paused && c.elapsed ? { text: `‖${text}`, color: theme.tone.warn } : { text };
    }
    case 'spend':
      return { text: c.spend ?? '' };
    case 'ctx':
      // a context nearly full (compaction near) stands out
      return Number.parseInt(c.ctx ?? '', 10) >= CTX_WARN_PERCENT ? { text: c.ctx!, color: theme.tone.warn } : { text: c.ctx ?? '' };
    default:
      return { text: c[column.id] };
  }
}

/**
 * A row exactly as it is drawn: the selection mark, then each cell cut to its column and
 * padded. What a row component is memoised on, so a row re-renders only when this changed.
 */
export function rowSegments(c: RowCells, columns: readonly Column[], widths: readonly number[], selected: boolean, theme: Theme): Segment[] {
  const mark: Segment = selected ? { text: '›', pad: MARK_WIDTH - 1, bold: true, color: theme.accent } : { text: '', pad: MARK_WIDTH };
  return [mark, ...columns.map((col, i): Segment => {
    const cell = cellOf(col, c, selected, theme);
    const text = cutCell(cell.text, widths[i]!);
    return { ...cell, text, pad: Math.max(0, widths[i]! - cellWidth(text)) };
  })];
}

/** Whether two rows draw the same: same text, padding and style in every cell. */
export function sameSegments(a: readonly Segment[], b: readonly Segment[]): boolean {
  return a.length === b.length && a.every((s, i) => {
    const t = b[i]!;
    return s.text === t.text && s.pad === t.pad && s.color === t.color && Boolean(s.bold) === Boolean(t.bold) && Boolean(s.inverse) === Boolean(t.inverse);
  });
}

const plain = (s: Segment): boolean => !s.color && !s.bold && !s.inverse;

/**
 * One row: a text per cell, side by side (no box per cell: that made every frame several
 * times dearer in layout). Memoised on what it draws, so a clock tick or a heartbeat
 * re-renders only the rows whose text moved. A text per cell rather than one per row:
 * Ink caches each line it draws by its text, and most cells read the same as last second.
 * The box keeps the row from wrapping when the table is wider than the terminal (the body clips it).
 */
const Row = memo(function Row({ segments, width }: { segments: readonly Segment[]; width: number }) {
  return (
    <Box width={width} flexShrink={0}>
      {segments.map((s, i) => (plain(s)
        ? <Text key={i}>{s.text + ' '.repeat(s.pad)}</Text>
        : <Text key={i}><Text color={s.color} bold={s.bold} inverse={s.inverse}>{s.text}</Text>{' '.repeat(s.pad)}</Text>))}
    </Box>
  );
}, (a, b) => a.width === b.width && sameSegments(a.segments, b.segments));

/**
 * The module table: a header and as many rows as fit, scrolled to keep the selection in
 * view. Each row is one line of text, its cells cut to width here (a box per cell made
 * every frame several times dearer in layout). The clock ticks here, once for the table;
 * rows whose text it did not change are not rendered again.
 */
export function Table({ rows, columns, selected, height, width, limits, emptyText }: TableProps) {
  // Elapsed times tick each second while a loop runs; otherwise only "ended 3m ago" moves.
  const now = useNow(rows.some(isLive) ? 1000 : 30_000);
  const theme = useTheme();
  const start = useRef(0);
  const capacity = Math.max(1, height - 1);
  const more = rows.length > capacity;
  // A scrolled table gives one line to say so.
  const win = visibleWindow(rows.length, Math.max(0, selected), more ? Math.max(1, capacity - 1) : capacity, start.current);
  start.current = win.start;
  const widths = useMemo(() => columnWidths(columns, width), [columns, width]);
  const lineWidth = MARK_WIDTH + widths.reduce((n, w) => n + w, 0);
  const shown = rows.slice(win.start, win.end);
  return (
    <Box flexDirection="column">
      <Text bold dimColor={theme.dim} wrap="truncate-end">{`${' '.repeat(MARK_WIDTH)}${columns.map((c, i) => fitCell(c.title, widths[i]!)).join('').trimEnd()}`}</Text>
      {rows.length === 0 ? <Text dimColor={theme.dim} wrap="truncate-end">{`  ${emptyText}`}</Text> : null}
      {shown.map((r, i) => (
        <Row key={r.key} width={lineWidth} segments={rowSegments(rowCells(r, isLive(r) || r.lastRun ? now : 0, limits), columns, widths, win.start + i === selected, theme)} />
      ))}
      {more ? <Text dimColor={theme.dim} wrap="truncate-end">{`  ${win.start + 1}-${win.end} of ${rows.length}`}</Text> : null}
    </Box>
  );
}
