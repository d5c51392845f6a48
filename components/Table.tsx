import { Fragment, useLayoutEffect, useMemo, useReducer, useRef, type ReactNode } from 'react';
import { Box, Text, type DOMElement } from 'ink';
import type { DeckRow } from '../src/deck/deck.js';
import { columnWidths, cutCell, fitCell, visibleWindow, MARK_WIDTH, type Column } from '../src/deck/layout.js';
import { rowCells, TIMED_CELLS, type CellLimits, type RowCells } from '../src/deck/cells.js';
import { sameItems } from '../src/deck/sameItems.js';
import { useTheme, type Theme } from './theme.js';
import { useNow } from './hooks/useNow.js';
import { useLiveColumns } from './hooks/liveColumns.js';
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

const isLive = (r: DeckRow): boolean => (r.loop !== undefined && r.loop.status !== 'failed' && r.loop.status !== 'suspended') || (r.claude?.view.live ?? false);

/** One line of a column: its text, and a style when it has one. */
interface Line {
  text: string;
  color?: string | undefined;
  bold?: boolean;
  inverse?: boolean;
}

/** `text` behind a bar of `cells` when the column has one (blank cells when the row has no figure). */
function withBar(text: string, fraction: number | undefined, cells: number | undefined): string {
  if (!cells || text === '') return text;
  return `${fraction === undefined ? ' '.repeat(cells) : bar(fraction, cells)} ${text}`;
}

function columnLines(column: Column, cells: readonly RowCells[], selectedLine: number, theme: Theme): Line[] {
  return cells.map((c, i): Line => {
    switch (column.id) {
      case 'name':
        return { text: c.elsewhere ? `↗ ${c.name}` : c.name, bold: i === selectedLine, inverse: i === selectedLine && !theme.accent };
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
      case 'host':
        return { text: c.host };
      case 'ctx':
        // a context nearly full (compaction near) stands out
        return Number.parseInt(c.ctx ?? '', 10) >= CTX_WARN_PERCENT ? { text: c.ctx!, color: theme.tone.warn } : { text: c.ctx ?? '' };
      default:
        return { text: c[column.id] };
    }
  });
}

/** From this fill on, the ctx % cell is drawn in the warning colour. */
const CTX_WARN_PERCENT = 80;

const plain = (l: Line): boolean => !l.color && !l.bold && !l.inverse;

/** A column's lines as one text: a plain string when nothing in it is styled. */
function ColumnText({ lines }: { lines: readonly Line[] }) {
  if (lines.every(plain)) return <Text>{lines.map((l) => l.text).join('\n')}</Text>;
  return (
    <Text>
      {lines.map((l, i): ReactNode => (
        <Fragment key={i}>
          {i > 0 ? '\n' : ''}
          {plain(l) ? l.text : <Text color={l.color} bold={l.bold} inverse={l.inverse}>{l.text}</Text>}
        </Fragment>
      ))}
    </Text>
  );
}

/** Each column's lines as drawn: its cells' text, cut to the column's width. */
function tableLines(columns: readonly Column[], widths: readonly number[], cells: readonly RowCells[], selectedLine: number, theme: Theme): Line[][] {
  return columns.map((c, ci) => columnText(c, widths[ci]!, cells, selectedLine, theme));
}

function columnText(column: Column, width: number, cells: readonly RowCells[], selectedLine: number, theme: Theme): Line[] {
  return columnLines(column, cells, selectedLine, theme).map((l) => ({ ...l, text: cutCell(l.text, width) }));
}

/**
 * The module table: a header and as many rows as fit, scrolled to keep the selection in
 * view. Drawn by column, one text per column, cells cut to width here: a box per cell made
 * each frame several times dearer in layout and rendering than these few texts.
 *
 * The clocks move without React: in the dashboard the table hands its columns to the frame
 * writer (LiveColumns), which brings the cells that time alone changes up to date each
 * second between Ink's frames. Without one (tests of the components alone) a tick
 * re-renders the table each second.
 */
export function Table({ rows, columns, selected, height, width, limits, emptyText }: TableProps) {
  const live = useLiveColumns();
  // Elapsed times tick each second while a loop runs; otherwise only "ended 3m ago" moves.
  const ticking = rows.some(isLive);
  const now = useNow(ticking ? 1000 : 30_000, !live);
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const theme = useTheme();
  const start = useRef(0);
  const boxes = useRef<(DOMElement | null)[]>([]);
  const boxRefs = useMemo(() => columns.map((_, ci) => (el: DOMElement | null) => { boxes.current[ci] = el; }), [columns]);
  const capacity = Math.max(1, height - 1);
  const more = rows.length > capacity;
  // A scrolled table gives one line to say so.
  const win = visibleWindow(rows.length, Math.max(0, selected), more ? Math.max(1, capacity - 1) : capacity, start.current);
  start.current = win.start;
  const widths = useMemo(() => columnWidths(columns, width), [columns, width]);
  const shown = rows.slice(win.start, win.end);
  const selectedLine = selected - win.start;
  const cellsAt = (t: number, rs: readonly DeckRow[]): RowCells[] => rs.map((r) => rowCells(r, isLive(r) || r.lastRun ? t : 0, limits));
  const lines = tableLines(columns, widths, cellsAt(now, shown), selectedLine, theme);
  useLayoutEffect(() => {
    if (!live || shown.length === 0) return;
    // The last lines worked out, and from which rows: a column time does not move is the same while they are.
    let last: { rows: readonly DeckRow[]; lines: readonly (readonly string[] | undefined)[] } | undefined;
    return live.add({
      columns: columns.map((_, ci) => ({ box: boxes.current[ci] ?? null, width: widths[ci]!, drawn: lines[ci]!.map((l) => l.text) })),
      // the rows as they are now: a plain change React was spared is drawn from here
      // a clock's tick works out only the columns time moves (the rest is as Ink drew it)
      linesAt: (t, all) => {
        const now = live.current(shown);
        const sameRows = last !== undefined && sameItems(last.rows, now);
        const cells = cellsAt(t, now);
        const out = columns.map((c, ci) => {
          const timed = TIMED_CELLS.has(c.id);
          if (!all && !timed) return undefined;
          // all: every tick while React is behind the rows; most columns stay put between two ticks
          const before = last?.lines[ci];
          if (!timed && sameRows && before) return before;
          const text = columnText(c, widths[ci]!, cells, selectedLine, theme).map((l) => l.text);
          // the same lines as before (another row's step, a step without a countdown): the same array, which the writer knows
          return before && sameItems(before, text) ? before : text;
        });
        last = { rows: now, lines: out };
        return out;
      },
      ticking: ticking || rows.some((r) => r.lastRun),
      redraw,
    });
  });
  return (
    <Box flexDirection="column">
      <Text bold dimColor={theme.dim} wrap="truncate-end">{`${' '.repeat(MARK_WIDTH)}${columns.map((c, i) => fitCell(c.title, widths[i]!)).join('').trimEnd()}`}</Text>
      {rows.length === 0 ? <Text dimColor={theme.dim} wrap="truncate-end">{`  ${emptyText}`}</Text> : null}
      {shown.length > 0
        ? (
            <Box>
              <Box width={MARK_WIDTH} flexShrink={0}>
                <ColumnText lines={shown.map((_, i) => (i === selectedLine ? { text: '›', bold: true, color: theme.accent } : { text: '' }))} />
              </Box>
              {columns.map((c, ci) => (
                <Box key={c.id} width={widths[ci]} flexShrink={0} ref={boxRefs[ci]}>
                  <ColumnText lines={lines[ci]!} />
                </Box>
              ))}
            </Box>
          )
        : null}
      {more ? <Text dimColor={theme.dim} wrap="truncate-end">{`  ${win.start + 1}-${win.end} of ${rows.length}`}</Text> : null}
    </Box>
  );
}
