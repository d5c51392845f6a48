import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ansiToSvg } from './ansiSvg.js';

/**
 * `npm run screenshot`: the picture at the top of the README, made again from a real run.
 * Runs `autodeck demo` in a pane of a private tmux server (no config file), waits for a
 * moment with something to see (a quota wait counting down, loops finished, others
 * running), captures the pane with its colours (`capture-pane -e -p`) and writes
 * docs/dashboard.svg. Every argument reaches tmux as its own argv word.
 */
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN = join(REPO, 'bin', 'autodeck.js');
const OUT = process.argv[2] ?? join(REPO, 'docs', 'dashboard.svg');
const COLS = 120;
const ROWS = 30;

const socket = `autodeck-shot-${process.pid}`;
const tmux = (args: string[]): string => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A screen worth showing: a usage limit counting down while some loops have ended and others run. */
export function worthShowing(screen: string): boolean {
  const head = screen.split('\n')[0] ?? '';
  return /reset in \d/.test(screen) && /▶ \d+ running/.test(head) && /(complete|max iter|blocked)/.test(head);
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'autodeck-shot-'));
  try {
    tmux(['new-session', '-d', '-s', 'shot', '-x', String(COLS), '-y', String(ROWS), '-e', `TMPDIR=${tmp}`, '-e', 'TERM=xterm-256color', '--',
      process.execPath, BIN, 'demo', '--speed', '1']);
    tmux(['set-option', '-t', 'shot', 'status', 'off']);
    let screen = '';
    for (let waited = 0; waited < 90_000; waited += 250) {
      await sleep(250);
      screen = tmux(['capture-pane', '-p', '-t', 'shot']);
      if (worthShowing(screen)) break;
    }
    await sleep(300); // the frame after the one that matched: drawn completely
    const ansi = tmux(['capture-pane', '-e', '-p', '-t', 'shot']);
    // The raw capture too, when asked (how the test's fixture was made).
    if (process.env.AUTODECK_SHOT_ANSI) writeFileSync(process.env.AUTODECK_SHOT_ANSI, ansi);
    mkdirSync(dirname(OUT), { recursive: true });
    writeFileSync(OUT, ansiToSvg(ansi, { cols: COLS, rows: ROWS, title: 'autodeck demo: the dashboard while seven loops run' }));
    process.stderr.write(`wrote ${OUT}${worthShowing(screen) ? '' : ' (the moment sought never came: the last screen)'}\n`);
  } finally {
    try {
      tmux(['kill-server']);
    } catch { /* already gone */ }
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
