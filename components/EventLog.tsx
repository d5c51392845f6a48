import { Box, Text, useInput } from 'ink';
import { formatEvent } from '../src/format/event.js';
import { useEvents } from './hooks/useEvents.js';
import { useTheme } from './theme.js';

/** The event log view (`l`): the newest events of every loop that fit, live. Esc, `l` or `q` closes. */
export function EventLog({ height, onClose }: { height: number; onClose: () => void }) {
  const theme = useTheme();
  const room = Math.max(1, height - 1);
  const events = useEvents(room);
  useInput((input, key) => {
    if (key.escape || input === 'l' || input === 'q' || key.return) onClose();
  });
  return (
    <Box flexDirection="column">
      <Text bold color={theme.accent} wrap="truncate-end">{`Event log, newest last (Esc closes)`}</Text>
      {events.length === 0 ? <Text dimColor={theme.dim}>no events yet</Text> : null}
      {events.map((e) => (
        // an event of another host: its host before the module's name, and in the key (ids are per host)
        <Text key={`${e.host ?? ''}${e.id ?? `${e.at}${e.kind}`}`} wrap="truncate-end">{formatEvent(e, e.host === undefined ? undefined : `${e.host}:${e.taskDir.split('/').pop() || e.session}`)}</Text>
      ))}
    </Box>
  );
}
