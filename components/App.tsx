import { useEffect, useReducer, useRef, type ReactElement } from 'react';
import { Box, Text, useInput } from 'ink';
import { commandForKey, type CommandId } from '../src/keymap.js';
import { printable } from '../src/format/event.js';
import { breakpointFor, columnsFor, tableOverflows, withHostColumn, type Breakpoint } from '../src/deck/layout.js';
import { Table } from './Table.js';
import { Footer } from './Footer.js';
import { Help } from './Help.js';
import { StartDialog } from './StartDialog.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { DetailPane } from './DetailPane.js';
import { ClaudeDetail } from './ClaudeDetail.js';
import { EventLog } from './EventLog.js';
import { Header } from './Header.js';
import { RunHistory } from './RunHistory.js';
import { AnswerDialog, PromptDialog } from './ClaudeDialogs.js';
import { FilterBar } from './FilterBar.js';
import { useModel, useVisibleRows } from './hooks/useModel.js';
import { useWindowSize } from './hooks/useWindowSize.js';
import { useLiveColumns } from './hooks/liveColumns.js';
import { filterRows, keyName, selectedIndex, uiReducer, INITIAL_UI, type Overlay, type UiState } from './state.js';
import type { DeckRow } from '../src/deck/deck.js';
import { quitLines } from './quit.js';
import { interestingKey } from '../src/deck/focus.js';
import { useTheme } from './theme.js';
import { keyTrace, keyTraceOn } from '../src/trace.js';

export interface AppProps {
  /** Where the dashboard was before an attach. */
  initial?: UiState;
  /** Reports the state as it changes, so an attach can bring it back. */
  onState?: (state: UiState) => void;
  onAttach: (key: string) => void;
  /** Quit; loops of this process are left as the quit dialog said. */
  onQuit: () => void;
  title?: string;
  /** Until a key moves the selection, select the row that most wants an eye (the demo). */
  follow?: boolean;
  /** Loops on a workspace that goes with this dashboard (the demo): nothing resumes them. */
  throwaway?: boolean;
}

/** The table's columns: with a HOST column when other hosts are shown (src/hosts/). */
function tableColumns(breakpoint: Breakpoint, width: number, hosts: boolean) {
  const columns = columnsFor(breakpoint, width);
  return hosts ? withHostColumn(columns, breakpoint) : columns;
}

/** The dashboard: one table, one overlay at a time, one place that reads keys. */
export function App({ initial, onState, onAttach, onQuit, title = 'autodeck', follow = false, throwaway = false }: AppProps) {
  const model = useModel();
  const theme = useTheme();
  const { columns: width, rows: height } = useWindowSize();
  const [ui, dispatch] = useReducer(uiReducer, initial ?? INITIAL_UI);
  const hostsShown = (model.hosts?.length ?? 0) > 0;
  const spendShown = columnsFor(breakpointFor(width), width).some((c) => c.id === 'spend' || c.id === 'ctx');
  // The dashboard's writer draws plain changes of unselected rows (steps, iterations) without
  // React; not while a filter or the demo's follow mode picks rows by what they show.
  const liveColumns = useLiveColumns();
  const plain = liveColumns && !ui.filter && !(follow && ui.selectedKey === undefined) ? { live: liveColumns, pinned: ui.selectedKey } : undefined;
  const allRows = useVisibleRows(model.settings, spendShown, plain);
  const rows = filterRows(allRows, ui.filter);
  const followed = useRef<string | undefined>(undefined);
  if (follow && ui.selectedKey === undefined) followed.current = interestingKey(rows, followed.current);
  const selectedKey = ui.selectedKey ?? (follow ? followed.current : undefined);
  const index = selectedIndex(rows, selectedKey);
  if (keyTraceOn) keyTrace(`render selected ${rows[index]?.name ?? '-'}`);
  const row = index >= 0 ? rows[index] : undefined;
  const breakpoint = breakpointFor(width);
  const overlay = ui.overlay;

  useEffect(() => onState?.(ui), [ui, onState]);
  // What actions on other hosts came to, said when it is known.
  useEffect(() => model.subscribeNotices?.((n) => dispatch({ type: 'message', message: { text: printable(n.text), tone: n.tone } })), [model]);

  // Every message goes through printable: it may carry a folder name or a refusal quoting one.
  // Keys can come faster than renders (a paste, key repeat over ssh): the key handler
  // reads the selection and the open overlay from here, kept current as each key acts,
  // not from the closure of the last render.
  const live = useRef({ selectedKey, overlay: overlay.kind as string });
  live.current = { selectedKey, overlay: overlay.kind };
  const currentRow = (): DeckRow | undefined => rows[selectedIndex(rows, live.current.selectedKey)];
  const open = (next: Overlay): void => {
    live.current.overlay = next.kind;
    dispatch({ type: 'open', overlay: next });
  };

  const say = (text: string, tone: 'info' | 'error' = 'info'): void => dispatch({ type: 'message', message: { text: printable(text), tone } });
  const nameOf = (key: string): string => printable(allRows.find((r) => r.key === key)?.name ?? key);

  const run = (id: CommandId, row: DeckRow | undefined): void => {
    switch (id) {
      case 'up':
      case 'down': {
        const at = selectedIndex(rows, live.current.selectedKey);
        const next = rows[Math.min(rows.length - 1, Math.max(0, at + (id === 'up' ? -1 : 1)))];
        if (!next) return;
        live.current.selectedKey = next.key;
        if (keyTraceOn) keyTrace(`select ${next.name} (row ${rows.indexOf(next)} of ${rows.length})`);
        dispatch({ type: 'select', key: next.key });
        return;
      }
      case 'start':
        open({ kind: 'start', key: row!.key });
        return;
      case 'stop':
      case 'forceStop':
        open({ kind: 'confirm', action: id, key: row!.key });
        return;
      case 'restart': {
        const r = model.restart(row!.key);
        say(r.ok ? (r.message ?? `restarted ${row!.name}`) : `not restarted: ${r.message}`, r.ok ? 'info' : 'error');
        return;
      }
      case 'attach':
        onAttach(row!.key);
        return;
      case 'history':
        open({ kind: 'history', key: row!.key });
        return;
      case 'answer':
      case 'prompt':
        open({ kind: id, key: row!.key });
        return;
      case 'log':
      case 'help':
      case 'filter':
        open({ kind: id });
        return;
      case 'detail':
        dispatch({ type: 'toggleDetail', shownNow: detailShown });
        return;
      case 'quit': {
        const here = model.runningHere();
        if (here.pty + here.tmux === 0) onQuit();
        else open({ kind: 'quit' });
        return;
      }
    }
  };

  useInput((input, key) => {
    if (keyTraceOn) keyTrace(`input ${JSON.stringify(input)} overlay ${live.current.overlay} selected ${live.current.selectedKey?.split('/').pop() ?? '-'}`);
    if (live.current.overlay !== 'none') return; // opened by a key this render has not seen yet
    const name = keyName(input, key);
    if (name === 'escape') {
      if (ui.filter) dispatch({ type: 'filter', text: '' });
      dispatch({ type: 'message', message: undefined });
      return;
    }
    const command = commandForKey(name);
    if (!command) return;
    const row = currentRow();
    const why = command.disabled?.({ row });
    if (why) return say(`${command.label}: ${why}`, 'error');
    if (ui.message) dispatch({ type: 'message', message: undefined });
    run(command.id, row);
  }, { isActive: overlay.kind === 'none' });

  // Lines: title 1, message 1, footer 1; the rest is the table and the detail pane. One
  // line is kept free: a frame as tall as the terminal makes Ink clear it on every update.
  const body = Math.max(1, height - 4);
  const detailShown = ui.detail ?? (breakpoint !== 'side' && body >= 14);
  const tableHeight = detailShown && row ? Math.max(2, Math.min(rows.length + 2, Math.floor(body * 0.45))) : body;
  const detailHeight = detailShown && row ? body - tableHeight : 0;

  let main: ReactElement;
  switch (overlay.kind) {
    case 'start': {
      const name = nameOf(overlay.key);
      main = (
        <StartDialog
          name={name}
          defaults={model.settings}
          suggestion={model.suggestion(overlay.key)}
          worktree={model.settings.worktree ?? false}
          onCancel={() => dispatch({ type: 'close' })}
          onStart={(limits, opts) => {
            const r = model.start(overlay.key, limits, opts);
            if (r.ok) {
              dispatch({ type: 'close' });
              // a start over ssh says its own (it goes on in the background); else the limits and the worktree
              say(r.message ?? `started ${name}: at most ${limits.maxIterations} iterations, ${limits.timeoutMinutes} min${opts.worktree ? ', in a worktree' : ''}`);
            }
            return r;
          }}
        />
      );
      break;
    }
    case 'confirm': {
      const name = nameOf(overlay.key);
      const force = overlay.action === 'forceStop';
      main = (
        <ConfirmDialog
          title={`${force ? 'Force stop' : 'Stop'} ${name}?`}
          lines={model.claude?.entry(overlay.key)
            ? ['claude stop: the session ends now, in the middle of a turn if it is in one.', 'Its conversation is kept: a prompt or claude attach wakes it.']
            : force
              ? ['The agent is killed now, in the middle of its step.']
              : ['The agent finishes its current step, then stops (a stop file is written).']}
          yesLabel={force ? 'kill it' : 'stop it'}
          onNo={() => dispatch({ type: 'close' })}
          onYes={() => {
            dispatch({ type: 'close' });
            // a Claude Code session: claude stop, whose outcome comes a moment later
            if (model.claude?.entry(overlay.key)) {
              say(`stopping ${name}`);
              void model.claude.stop(overlay.key).then((r) => say(r.ok ? `stopped ${name}` : `not stopped: ${r.message}`, r.ok ? 'info' : 'error'));
              return;
            }
            const r = model.stop(overlay.key, force);
            say(r.ok ? (r.message ?? `${force ? 'killing' : 'stopping'} ${name}`) : `not stopped: ${r.message}`, r.ok ? 'info' : 'error');
          }}
        />
      );
      break;
    }
    case 'answer': {
      const name = nameOf(overlay.key);
      const request = model.claude?.entry(overlay.key)?.request;
      main = request
        ? (
            <AnswerDialog name={name} request={request} onCancel={() => dispatch({ type: 'close' })} onAnswer={(input) => {
              dispatch({ type: 'close' });
              const r = model.claude!.answer(overlay.key, input);
              say(r.ok ? `${name}: ${r.message ?? 'answered'}` : `not answered: ${r.message}`, r.ok ? 'info' : 'error');
            }} />
          )
        : <ConfirmDialog title={`${name}: nothing to answer now`} lines={['The request was answered or closed meanwhile.']} yesLabel="close" onYes={() => dispatch({ type: 'close' })} onNo={() => dispatch({ type: 'close' })} />;
      break;
    }
    case 'prompt': {
      const name = nameOf(overlay.key);
      main = (
        <PromptDialog name={name} onCancel={() => dispatch({ type: 'close' })} onSend={(prompt) => {
          dispatch({ type: 'close' });
          say(`sending to ${name}…`);
          void model.claude?.send(overlay.key, prompt).then((r) => say(r.ok ? `${name}: ${r.message ?? 'sent'}` : `not sent: ${r.message}`, r.ok ? 'info' : 'error'));
        }} />
      );
      break;
    }
    case 'quit':
      main = <ConfirmDialog title="Quit autodeck?" lines={quitLines(model.runningHere(), throwaway)} yesLabel="quit" onNo={() => dispatch({ type: 'close' })} onYes={onQuit} />;
      break;
    case 'help':
      main = <Help height={body} width={width} detachKey={model.settings.detachKey} onClose={() => dispatch({ type: 'close' })} />;
      break;
    case 'history':
      main = <RunHistory taskKey={overlay.key} name={nameOf(overlay.key)} height={body} onClose={() => dispatch({ type: 'close' })} />;
      break;
    case 'log':
      main = <EventLog height={body} onClose={() => dispatch({ type: 'close' })} />;
      break;
    default:
      main = (
        <Box flexDirection="column">
          <Table
            rows={rows}
            columns={tableColumns(breakpoint, width, hostsShown)}
            selected={index}
            height={tableHeight}
            width={width}
            limits={model.settings}
            emptyText={ui.filter ? `no module matches "${ui.filter}"` : 'no task modules under the roots: autodeck new NAME makes one'}
          />
          {detailHeight > 0 && row
            ? row.claude ? <ClaudeDetail row={{ ...row, claude: row.claude }} height={detailHeight} width={width} /> : <DetailPane row={row} height={detailHeight} width={width} />
            : null}
        </Box>
      );
  }

  return (
    <Box flexDirection="column" width={width}>
      <Header title={title} rows={allRows} filter={ui.filter} width={width} side={breakpoint === 'side'} />
      <Box flexDirection="column" height={body} overflowY="hidden" overflowX={tableOverflows(tableColumns(breakpoint, width, hostsShown), width) ? 'hidden' : 'visible'}>
        {main}
      </Box>
      {overlay.kind === 'filter'
        ? <FilterBar initial={ui.filter} onChange={(text) => dispatch({ type: 'filterTyped', text })} onDone={(keep) => {
            if (!keep) dispatch({ type: 'filter', text: '' });
            dispatch({ type: 'close' });
          }} />
        : <Text color={ui.message?.tone === 'error' ? theme.error : undefined} wrap="truncate-end">{ui.message ? `${ui.message.tone === 'error' ? '✗ ' : ''}${ui.message.text}` : ' '}</Text>}
      <Footer row={row} breakpoint={breakpoint} width={width} detachKey={model.settings.detachKey} />
    </Box>
  );
}
