import { Box, Text, useInput } from 'ink';
import { TextInput } from '@inkjs/ui';
import { printable } from '../src/format/event.js';
import { questionTexts, type ClaudeRequestRow } from '../src/claudeSessions/requests.js';
import { useTheme } from './theme.js';

/** A question's options' labels, in order (AskUserQuestion's `options[].label`). */
function optionLabels(request: ClaudeRequestRow): string[] {
  const first = request.request.questions?.[0] as { options?: { label?: unknown }[] } | undefined;
  return (first?.options ?? []).map((o) => (typeof o.label === 'string' ? o.label : '')).filter(Boolean);
}

/**
 * The answer to the request autodeck's hook holds for a Claude Code session. A permission:
 * `y`/Enter allows, `n` refuses, Esc leaves it open. A question: an option's number or any
 * text, then Enter. Nothing is typed into the session: the hook hands the answer over.
 */
export function AnswerDialog({ name, request, onAnswer, onCancel }: {
  name: string;
  request: ClaudeRequestRow;
  onAnswer: (input: { decision?: 'allow' | 'deny'; text?: string }) => void;
  onCancel: () => void;
}) {
  const theme = useTheme();
  const question = request.kind === 'question';
  const labels = question ? optionLabels(request) : [];
  useInput((input, key) => {
    if (key.escape) onCancel();
    else if (!question && (input === 'y' || input === 'Y' || key.return)) onAnswer({ decision: 'allow' });
    else if (!question && (input === 'n' || input === 'N')) onAnswer({ decision: 'deny' });
  });
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold color={theme.tone.warn} wrap="truncate-end">{printable(`${name} ${question ? 'asks' : 'asks for permission'}`)}</Text>
      {question
        ? questionTexts(request.request).map((q, i) => <Text key={`q${i}`} wrap="truncate-end">{printable(q)}</Text>)
        : <Text wrap="truncate-end">{printable(request.text)}</Text>}
      {labels.map((l, i) => <Text key={`o${i}`} wrap="truncate-end">{printable(`  ${i + 1}. ${l}`)}</Text>)}
      {question
        ? (
            <Box>
              <Text color={theme.accent}>answer: </Text>
              <TextInput placeholder="an option's number, or your own words" onSubmit={(value) => {
                const n = Number.parseInt(value.trim(), 10);
                const text = /^\d+$/.test(value.trim()) && labels[n - 1] ? labels[n - 1]! : value;
                if (text.trim() !== '') onAnswer({ text });
              }} />
            </Box>
          )
        : <Text wrap="truncate-end">y/Enter allow   n refuse   Esc later</Text>}
    </Box>
  );
}

/** A prompt for a Claude Code session's next turn: Enter sends it, Esc cancels. */
export function PromptDialog({ name, onSend, onCancel }: { name: string; onSend: (prompt: string) => void; onCancel: () => void }) {
  const theme = useTheme();
  useInput((_input, key) => {
    if (key.escape) onCancel();
  });
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold wrap="truncate-end">{printable(`Send ${name} a prompt (its next turn, under its own id)`)}</Text>
      <Box>
        <Text color={theme.accent}>{'> '}</Text>
        <TextInput placeholder="what it should do next" onSubmit={(value) => {
          if (value.trim() !== '') onSend(value);
        }} />
      </Box>
      <Text dimColor={theme.dim} wrap="truncate-end">Enter send   Esc cancel</Text>
    </Box>
  );
}
