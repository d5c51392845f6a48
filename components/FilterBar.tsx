import { Box, Text, useInput } from 'ink';
import { TextInput } from '@inkjs/ui';
import { useTheme } from './theme.js';

/** The filter line (`/`): the table narrows while typing; Enter keeps the filter, Esc clears it. */
export function FilterBar({ initial, onChange, onDone }: { initial: string; onChange: (text: string) => void; onDone: (keep: boolean) => void }) {
  const theme = useTheme();
  useInput((_input, key) => {
    if (key.escape) onDone(false);
  });
  return (
    <Box>
      <Text color={theme.accent}>/ </Text>
      <TextInput defaultValue={initial} placeholder="part of a module name; @host for a host's" onChange={onChange} onSubmit={() => onDone(true)} />
    </Box>
  );
}
