import { useMemo, useSyncExternalStore } from 'react';
import { Box, Text, useInput } from 'ink';
import { printable } from '../src/format/event.js';
import { runLines } from '../src/deck/runLines.js';
import { useModel } from './hooks/useModel.js';
import { useTheme } from './theme.js';

/**
 * The history view (`h`): the selected module's finished runs, newest first, with
 * outcome, iterations, active time and score (what `autodeck history TASK_DIR` prints).
 * Read once when opened; Esc, `h` or `q` closes.
 */
export function RunHistory({ taskKey, name, height, onClose }: { taskKey: string; name: string; height: number; onClose: () => void }) {
  const theme = useTheme();
  const model = useModel();
  const room = Math.max(1, height - 2);
  // read again when the log moves: a host's history comes in over ssh after the view opened
  const version = useSyncExternalStore(model.subscribeEvents, model.getEventsVersion);
  const lines = useMemo(() => runLines(model.runs(taskKey, room), Date.now()), [model, taskKey, room, version]);
  useInput((input, key) => {
    if (key.escape || input === 'h' || input === 'q' || key.return) onClose();
  });
  return (
    <Box flexDirection="column">
      <Text bold color={theme.accent} wrap="truncate-end">{`Runs of ${printable(name)}, newest first (Esc closes)`}</Text>
      {lines.length <= 1
        ? <Text dimColor={theme.dim} wrap="truncate-end">no finished runs yet</Text>
        : lines.map((l, i) => <Text key={i} bold={i === 0} wrap="truncate-end">{l}</Text>)}
    </Box>
  );
}
