/** What the quit dialog says happens to this process's loops. */
export function quitLines(here: { pty: number; tmux: number }): string[] {
  const lines: string[] = [];
  const n = (count: number, what: string): string => `${count} ${what}${count === 1 ? '' : 's'}`;
  if (here.pty > 0) lines.push(`${n(here.pty, 'pty loop')}: suspended now, resumed at the next launch of autodeck.`);
  if (here.tmux > 0) lines.push(`${n(here.tmux, 'tmux loop')}: keep${here.tmux === 1 ? 's' : ''} running; the next autodeck re-attaches.`);
  return lines;
}
