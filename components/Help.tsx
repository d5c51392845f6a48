import { Box, Text, useInput } from 'ink';
import { useState } from 'react';
import wrapAnsi from 'wrap-ansi';
import { COMMANDS, DIALOG_KEYS, ROW_MARKS, keyDescription, keyLabel, type Command } from '../src/keymap.js';
import { stateLegend } from '../src/deck/states.js';
import { useTheme } from './theme.js';

const GROUPS: { id: Command['group']; title: string }[] = [
  { id: 'move', title: 'Move' },
  { id: 'loops', title: 'Loops' },
  { id: 'views', title: 'Views' },
  { id: 'app', title: 'App' },
];

type Line = { text: string; heading?: boolean };

/** Every line of the help at `width` columns, from the command table; narrow, each description goes under its keys. */
export function helpLines(width = 100, detachKey = 'ctrl-q'): Line[] {
  const lines: Line[] = [];
  const narrow = width < 72;
  const indent = narrow ? 6 : 24;
  const entry = (keys: string, description: string): void => {
    const wrapped = wrapAnsi(description, Math.max(10, width - indent - 1), { hard: true }).split('\n');
    if (narrow) lines.push({ text: `  ${keys}` });
    wrapped.forEach((part, i) => lines.push({ text: narrow || i > 0 ? `${' '.repeat(indent)}${part}` : `  ${keys.padEnd(indent - 3)} ${part}` }));
  };
  for (const g of GROUPS) {
    lines.push({ text: g.title, heading: true });
    for (const c of COMMANDS.filter((x) => x.group === g.id)) entry(c.keys.map(keyLabel).join(' / '), `${keyDescription(c, detachKey)}${c.dangerous ? ' (asks first)' : ''}`);
  }
  lines.push({ text: 'In dialogs', heading: true });
  for (const d of DIALOG_KEYS) entry(d.keys, d.description);
  lines.push({ text: 'States (the glyph says the group, the word the state)', heading: true });
  for (const l of stateLegend()) entry(l.head, `${l.states}: ${l.meaning}`);
  for (const m of ROW_MARKS) entry(m.mark, m.description);
  lines.push({ text: 'Footer: a struck-through or missing command cannot run on the selected row.' });
  return lines;
}

/** The `?` overlay; ↑/↓ scroll when it is taller than the terminal, any other key closes it. */
export function Help({ height, width, detachKey, onClose }: { height: number; width: number; detachKey: string; onClose: () => void }) {
  const theme = useTheme();
  const lines = helpLines(width, detachKey);
  const [top, setTop] = useState(0);
  const room = Math.max(1, height - 1);
  const fits = lines.length <= room;
  const shown = fits ? lines : lines.slice(top, top + room - 1);
  useInput((input, key) => {
    if (!fits && (key.downArrow || input === 'j')) setTop((t) => Math.min(lines.length - (room - 1), t + 1));
    else if (!fits && (key.upArrow || input === 'k')) setTop((t) => Math.max(0, t - 1));
    else onClose();
  });
  return (
    <Box flexDirection="column">
      <Text bold color={theme.accent} wrap="truncate-end">autodeck keys (any other key closes)</Text>
      {shown.map((l, i) => (
        <Text key={top + i} bold={l.heading} wrap="truncate-end">{l.text}</Text>
      ))}
      {fits ? null : <Text dimColor={theme.dim} wrap="truncate-end">{`↑↓ scroll  ${top + 1}-${top + shown.length} of ${lines.length}`}</Text>}
    </Box>
  );
}
