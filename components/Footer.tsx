import { memo } from 'react';
import { Box, Text } from 'ink';
import type { DeckRow } from '../src/deck/deck.js';
import { footerItems } from '../src/deck/footer.js';
import type { Breakpoint } from '../src/deck/layout.js';
import { useTheme } from './theme.js';

/**
 * The footer: the commands' keys and short labels (src/deck/footer.ts chooses what fits);
 * unavailable ones dimmed. Drawn again only when the selected row or the width changed.
 */
export const Footer = memo(function Footer({ row, breakpoint, width, detachKey }: { row: DeckRow | undefined; breakpoint: Breakpoint; width: number; detachKey: string }) {
  const theme = useTheme();
  const items = footerItems({ row }, breakpoint, width, detachKey);
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
