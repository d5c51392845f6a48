import { memo } from 'react';
import { Box, Text } from 'ink';
import type { DeckRow } from '../src/deck/deck.js';
import { rowCells, type CellLimits } from '../src/deck/cells.js';
import type { Column } from '../src/deck/layout.js';
import { useTheme } from './theme.js';

interface RowProps {
  row: DeckRow;
  columns: readonly Column[];
  selected: boolean;
  /** 0 for a row without a running loop: nothing in it depends on time, so it does not re-render. */
  now: number;
  limits: CellLimits;
}

/** One line of the table. Memoised: rows whose data and time did not change are not rendered again. */
export const Row = memo(function Row({ row, columns, selected, now, limits }: RowProps) {
  const theme = useTheme();
  const cells = rowCells(row, now, limits);
  return (
    <Box>
      <Text bold={selected} color={selected ? theme.accent : undefined}>{selected ? '› ' : '  '}</Text>
      {columns.map((c) => {
        const box = c.width === undefined ? { flexGrow: 1, flexBasis: 0, minWidth: 6, paddingRight: 1 } : { width: c.width, flexShrink: 0, paddingRight: 1 };
        switch (c.id) {
          case 'name':
            return (
              <Box key={c.id} {...box}>
                <Text wrap="truncate-end" bold={selected} inverse={selected && !theme.accent}>{cells.elsewhere ? `↗ ${cells.name}` : cells.name}</Text>
              </Box>
            );
          case 'state':
            return (
              <Box key={c.id} {...box}>
                <Text wrap="truncate-end" color={theme.tone[cells.state.tone]}>{`${cells.state.glyph} ${cells.state.word}`}</Text>
              </Box>
            );
          case 'elapsed':
            return (
              <Box key={c.id} {...box}>
                <Text wrap="truncate-end" color={cells.paused ? theme.tone.warn : undefined}>{cells.paused && cells.elapsed ? `‖${cells.elapsed}` : cells.elapsed}</Text>
              </Box>
            );
          default:
            return (
              <Box key={c.id} {...box}>
                <Text wrap="truncate-end">{cells[c.id]}</Text>
              </Box>
            );
        }
      })}
    </Box>
  );
});
