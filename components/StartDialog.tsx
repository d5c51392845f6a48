import { useMemo, useRef, useState } from 'react';
import { Box, Text, useInput } from 'ink';
import { TextInput } from '@inkjs/ui';
import { START_FIELDS, START_FIELD_LABELS, nextField, startBasisText, validateStartForm, type StartField, type StartValues } from '../src/deck/startForm.js';
import type { Limits, LimitSuggestion } from '../src/history/suggest.js';
import type { ActionResult } from '../src/deck/model.js';
import { useTheme } from './theme.js';
import { printable } from '../src/format/event.js';

interface StartDialogProps {
  name: string;
  defaults: Limits;
  suggestion: LimitSuggestion;
  onStart: (limits: Limits) => ActionResult;
  onCancel: () => void;
}

/**
 * The start dialog: maxIterations and timeoutMinutes, prefilled with the
 * suggestion from past runs (the defaults when there are none). Enter starts only when
 * both values are valid; each invalid one says why under its field.
 */
export function StartDialog({ name, defaults, suggestion, onStart, onCancel }: StartDialogProps) {
  const theme = useTheme();
  const initial = useMemo<StartValues>(() => ({
    maxIterations: String(suggestion.maxIterations),
    timeoutMinutes: String(suggestion.timeoutMinutes),
  }), [suggestion]);
  const [values, setValues] = useState<StartValues>(initial);
  // TextInput calls onChange again on every render while its text differs from the
  // default; only a real edit clears the field's error.
  const seen = useRef<StartValues>(initial);
  const [focus, setFocus] = useState<StartField>('maxIterations');
  const [errors, setErrors] = useState<Partial<Record<StartField, string>>>({});
  const [failure, setFailure] = useState<string | undefined>();

  // The focused field's text comes with Enter: its onChange may not have landed yet.
  const submit = (field: StartField, text: string): void => {
    const current = { ...values, [field]: text };
    seen.current = current;
    setValues(current);
    const checked = validateStartForm(current);
    if (!checked.ok) {
      setErrors(checked.errors);
      setFocus(START_FIELDS.find((f) => checked.errors[f]) ?? focus);
      return;
    }
    setErrors({});
    const result = onStart(checked.limits);
    if (!result.ok) setFailure(result.message);
  };

  useInput((_input, key) => {
    if (key.escape) onCancel();
    else if (key.tab || key.downArrow || key.upArrow) setFocus((f) => nextField(f, key.upArrow || (key.tab && key.shift) ? -1 : 1));
  });

  const basis = startBasisText(suggestion, defaults);
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold wrap="truncate-end">{`Start a loop on ${name}`}</Text>
      {START_FIELDS.map((f) => (
        <Box key={f} flexDirection="column">
          <Box>
            <Text color={focus === f ? theme.accent : undefined} bold={focus === f}>{`${focus === f ? '›' : ' '} ${START_FIELD_LABELS[f].padEnd(18)} `}</Text>
            <TextInput
              key={f}
              isDisabled={focus !== f}
              defaultValue={initial[f]}
              onChange={(v) => {
                if (seen.current[f] === v) return;
                seen.current = { ...seen.current, [f]: v };
                setValues((old) => ({ ...old, [f]: v }));
                setErrors((old) => ({ ...old, [f]: undefined }));
                setFailure(undefined);
              }}
              onSubmit={(text) => submit(f, text)}
            />
          </Box>
          {errors[f] ? <Text color={theme.error} wrap="truncate-end">{`    ✗ ${errors[f]}`}</Text> : null}
        </Box>
      ))}
      <Text dimColor={theme.dim} wrap="truncate-end">{basis}</Text>
      {failure ? <Text color={theme.error} wrap="truncate-end">{`✗ not started: ${printable(failure)}`}</Text> : null}
      <Text dimColor={theme.dim} wrap="truncate-end">Enter start  Tab next field  Esc cancel</Text>
    </Box>
  );
}
