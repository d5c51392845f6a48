/**
 * What the quit dialog says happens to this process's loops: pty loops are suspended and
 * resumed by the next autodeck, tmux loops keep running. The demo's loops live in a
 * workspace of their own, which no later autodeck opens: they end with it.
 */
export function quitLines(here: { pty: number; tmux: number }, throwaway = false): string[] {
  const lines: string[] = [];
  const n = (count: number, what: string): string => `${count} ${what}${count === 1 ? '' : 's'}`;
  if (throwaway) {
    if (here.pty > 0) lines.push(`${n(here.pty, 'demo loop')}: stopped now; autodeck demo starts afresh each time.`);
    if (here.tmux > 0) lines.push(`${n(here.tmux, 'demo loop')} in tmux: run${here.tmux === 1 ? 's' : ''} on to its end, then goes.`);
    return lines;
  }
  if (here.pty > 0) lines.push(`${n(here.pty, 'pty loop')}: suspended now, resumed at the next launch of autodeck.`);
  if (here.tmux > 0) lines.push(`${n(here.tmux, 'tmux loop')}: keep${here.tmux === 1 ? 's' : ''} running; the next autodeck re-attaches.`);
  return lines;
}
