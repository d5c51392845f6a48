import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ansiToSvg } from './ansiSvg.js';

/**
 * `npm run screenshot`: the picture at the top of the README, made again from a real run.
 * Runs `autodeck demo` in a pane of a private tmux server (no config file) wide enough for
 * every column (the spend columns come at 130), waits for a moment with something to see
 * (a usage limit counting down, loops ended and loops running, spend figures), captures
 * the pane with its colours (`capture-pane -e -p`) and writes both the capture (the test
 * fixture the picture is checked against: test/unit/screenshot.test.ts) and docs/dashboard.svg.
 * Every argument reaches tmux as its own argv word.
 */
export const SHOT = { cols: 136, rows: 32, title: 'autodeck demo: the dashboard while seven loops run' } as const;
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const SHOT_FIXTURE = `test/fixtures/screens/dashboard/demo-${SHOT.cols}x${SHOT.rows}.ansi`;
export const SHOT_SVG = 'docs/dashboard.svg';
const BIN = join(REPO, 'bin', 'autodeck.js');

const socket = `autodeck-shot-${process.pid}`;
const tmux = (args: string[]): string => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A screen worth showing: a usage limit counting down, loops running and loops ended, what they spent. */
export function worthShowing(screen: string): boolean {
  const head = screen.split('\n')[0] ?? '';
  return /reset in \d/.test(screen) && /▶ \d+ running/.test(head) && /(✓ \d+ done|■ \d+ stopped|✗ \d+ failed)/.test(head) && /\$\d+\.\d\d/.test(screen);
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'autodeck-shot-'));
  try {
    tmux(['new-session', '-d', '-s', 'shot', '-x', String(SHOT.cols), '-y', String(SHOT.rows), '-e', `TMPDIR=${tmp}`, '-e', 'TERM=xterm-256color', '--',
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
    for (const [path, text] of [[SHOT_FIXTURE, ansi], [SHOT_SVG, ansiToSvg(ansi, SHOT)]] as const) {
      mkdirSync(dirname(join(REPO, path)), { recursive: true });
      writeFileSync(join(REPO, path), text);
    }
    process.stderr.write(`wrote ${SHOT_SVG} and ${SHOT_FIXTURE}${worthShowing(screen) ? '' : ' (the moment sought never came: the last screen)'}\n`);
  } finally {
    try {
      tmux(['kill-server']);
    } catch { /* already gone */ }
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
