import { memo } from 'react';
import { Text } from 'ink';
import type { DeckRow } from '../src/deck/deck.js';
import { rowCells, type CellLimits } from '../src/deck/cells.js';
import type { Column } from '../src/deck/layout.js';
import { cell } from './cell.js';
import { useTheme } from './theme.js';

interface RowProps {
  row: DeckRow;
  columns: readonly Column[];
  widths: readonly number[];
  selected: boolean;
  /** 0 for a row without a running loop: nothing in it depends on time, so it does not re-render. */
  now: number;
  limits: CellLimits;
}

/**
 * One line of the table, as one Text: the state cell coloured, the rest plain. Memoised:
 * rows whose data and time did not change are not rendered again.
 */
export const Row = memo(function Row({ row, columns, widths, selected, now, limits }: RowProps) {
  const theme = useTheme();
  const cells = rowCells(row, now, limits);
  const parts = columns.map((c, i) => {
    const w = widths[i]!;
    switch (c.id) {
      case 'name':
        return { id: c.id, text: cell(cells.elsewhere ? `↗ ${cells.name}` : cells.name, w) };
      case 'state':
        return { id: c.id, text: cell(`${cells.state.glyph} ${cells.state.word}`, w), color: theme.tone[cells.state.tone] };
      case 'elapsed':
        return { id: c.id, text: cell(cells.paused && cells.elapsed ? `‖${cells.elapsed}` : cells.elapsed, w), color: cells.paused ? theme.tone.warn : undefined };
      default:
        return { id: c.id, text: cell(cells[c.id], w) };
    }
  });
  return (
    <Text wrap="truncate-end" bold={selected}>
      <Text color={selected ? theme.accent : undefined}>{selected ? '› ' : '  '}</Text>
      {parts.map((p) => (p.color ? <Text key={p.id} color={p.color}>{p.text}</Text> : p.text))}
    </Text>
  );
});
