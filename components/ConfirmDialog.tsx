import { Box, Text, useInput } from 'ink';
import { useTheme } from './theme.js';

interface ConfirmProps {
  title: string;
  /** What will happen, in a line or two. */
  lines: readonly string[];
  yesLabel: string;
  onYes: () => void;
  onNo: () => void;
}

/** A yes/no question: `y` or Enter confirms, `n` or Esc cancels; nothing else does anything. */
export function ConfirmDialog({ title, lines, yesLabel, onYes, onNo }: ConfirmProps) {
  const theme = useTheme();
  useInput((input, key) => {
    if (input === 'y' || input === 'Y' || key.return) onYes();
    else if (input === 'n' || input === 'N' || key.escape) onNo();
  });
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold color={theme.tone.warn} wrap="truncate-end">{title}</Text>
      {lines.map((l, i) => (
        <Text key={i} wrap="truncate-end">{l}</Text>
      ))}
      <Text wrap="truncate-end">{`y/Enter ${yesLabel}   n/Esc cancel`}</Text>
    </Box>
  );
}
