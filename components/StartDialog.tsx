import { useCallback, useRef, useState } from 'react';
import { Box, Text, useInput, type Key } from 'ink';
import { START_FIELDS, START_FIELD_LABELS, startBasisText } from '../src/deck/startForm.js';
import { initialStartForm, startFormKey, type StartForm } from '../src/deck/startFormKeys.js';
import type { Limits, LimitSuggestion } from '../src/history/suggest.js';
import type { ActionResult } from '../src/deck/model.js';
import { useTheme } from './theme.js';
import { printable } from '../src/format/event.js';

interface StartDialogProps {
  name: string;
  defaults: Limits;
  suggestion: LimitSuggestion;
  onStart: (limits: Limits, opts: { worktree: boolean }) => ActionResult;
  onCancel: () => void;
  /** The worktree switch's first position (the `worktree` setting). */
  worktree?: boolean;
}

/**
 * The start dialog: maxIterations and timeoutMinutes, prefilled with the suggestion from
 * past runs (the defaults when there are none), and the worktree switch. Enter starts only
 * when both values are valid; each invalid one says why under its field.
 *
 * Several keys can arrive in one read (key repeat, a paste, ssh), faster than React renders
 * and re-binds key handlers. So one handler, bound once, takes every key and applies it to
 * the form as the previous key left it (held in a ref), never to a render's copy: a key
 * after Tab edits the next field, Enter after an edit starts with the edited text.
 */
export function StartDialog({ name, defaults, suggestion, onStart, onCancel, worktree = false }: StartDialogProps) {
  const theme = useTheme();
  const [form, setForm] = useState<StartForm>(() => initialStartForm({
    maxIterations: String(suggestion.maxIterations),
    timeoutMinutes: String(suggestion.timeoutMinutes),
  }, worktree));
  const live = useRef(form);
  const closed = useRef(false);
  const callbacks = useRef({ onStart, onCancel });
  callbacks.current = { onStart, onCancel };

  const onKey = useCallback((input: string, key: Key) => {
    if (closed.current) return; // the dialog is closing; the table takes keys again
    const { form: next, effect } = startFormKey(live.current, input, key);
    let shown = next;
    if (effect.kind === 'cancel') {
      closed.current = true;
      callbacks.current.onCancel();
      return;
    }
    if (effect.kind === 'start') {
      const result = callbacks.current.onStart(effect.limits, { worktree: effect.worktree });
      if (result.ok) closed.current = true;
      else shown = { ...next, failure: result.message };
    }
    live.current = shown;
    setForm(shown);
  }, []);
  useInput(onKey);

  const basis = startBasisText(suggestion, defaults);
  const onSwitch = form.focus === 'worktree';
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold wrap="truncate-end">{`Start a loop on ${name}`}</Text>
      {START_FIELDS.map((f) => {
        const focused = form.focus === f;
        const text = form.values[f];
        const cursor = form.cursors[f];
        return (
          <Box key={f} flexDirection="column">
            <Box>
              <Text color={focused ? theme.accent : undefined} bold={focused}>{`${focused ? '›' : ' '} ${START_FIELD_LABELS[f].padEnd(18)} `}</Text>
              {focused ? (
                <Text>
                  {printable(text.slice(0, cursor))}
                  <Text inverse>{printable(text.slice(cursor, cursor + 1)) || ' '}</Text>
                  {printable(text.slice(cursor + 1))}
                </Text>
              ) : (
                <Text>{printable(text)}</Text>
              )}
            </Box>
            {form.errors[f] ? <Text color={theme.error} wrap="truncate-end">{`    ✗ ${form.errors[f]}`}</Text> : null}
          </Box>
        );
      })}
      <Text color={onSwitch ? theme.accent : undefined} bold={onSwitch} wrap="truncate-end">
        {`${onSwitch ? '›' : ' '} ${'worktree'.padEnd(18)} ${form.worktree ? '[x] its own git worktree and branch' : '[ ] in the checkout'}${onSwitch ? '  (Space)' : ''}`}
      </Text>
      <Text dimColor={theme.dim} wrap="truncate-end">{basis}</Text>
      {/* wrapped, not cut: the end of a refusal says how to fix it */}
      {form.failure ? <Text color={theme.error} wrap="wrap">{`✗ not started: ${printable(form.failure)}`}</Text> : null}
      <Text dimColor={theme.dim} wrap="truncate-end">Enter start  Tab next field  Esc cancel</Text>
    </Box>
  );
}
