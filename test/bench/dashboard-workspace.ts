import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LoopRows, type LoopState } from './loopRows.js';
import { SIGNAL_FILE, SIGNAL_TMP_FILE, type Signal } from '../../src/protocol/signal.js';
import { alive } from './proc.js';
import { BIN } from './workspace.js';

/** An agent that prints one line and waits, writing no signal of its own; SIGTERM or SIGHUP ends it. */
const QUIET_AGENT = `process.stdout.write('quiet bench agent for ' + process.argv[2] + ': waiting\\r\\n');
setInterval(() => {}, 1e9);
for (const s of ['SIGTERM', 'SIGHUP', 'SIGINT']) process.on(s, () => process.exit(0));
`;

export type AgentKind = 'quiet' | 'sim';


/**
 * A throwaway project for the dashboard bench: `count` task modules `bench-01`... under
 * AiTasks/, its own database, HOME and XDG folders, and the agent the dashboard will
 * start: the quiet agent above, or the real simulated agent with slow steps.
 */
export class DeckWorkspace {
  readonly dir: string;
  readonly root: string;
  readonly db: string;
  readonly names: string[] = [];
  readonly modules: string[] = [];
  readonly agent: string;
  private readonly loops: LoopRows;
  private removed = false;

  /**
   * `sim`: `{stepSeconds}` per step and enough `(step-N)` steps never to finish; with
   * `floodLines`, each agent prints that many lines in its first step.
   */
  constructor(count: number, readonly kind: AgentKind, stepSeconds = 3, floodLines = 0) {
    this.dir = realpathSync(mkdtempSync(join(tmpdir(), 'autodeck-deckbench-')));
    mkdirSync(join(this.dir, '.git'));
    mkdirSync(join(this.dir, 'home'));
    this.root = join(this.dir, 'AiTasks');
    this.db = join(this.dir, 'state.db');
    this.loops = new LoopRows(this.db);
    for (let i = 1; i <= count; i++) {
      const name = `bench-${String(i).padStart(2, '0')}`;
      const m = join(this.root, name);
      mkdirSync(m, { recursive: true });
      writeFileSync(join(m, '.index.json'), JSON.stringify({ status: 'planning', title: name }));
      writeFileSync(join(m, '.target.md'), `# Target\n\nDashboard benchmark module ${name}.\n`);
      if (kind === 'sim') {
        const flood = floodLines > 0 ? { flood: { atIteration: 1, lines: floodLines } } : {};
        writeFileSync(join(m, '.sim.json'), JSON.stringify({ stepSeconds, steps: 100_000, ...flood }));
      }
      this.names.push(name);
      this.modules.push(realpathSync(m));
    }
    if (kind === 'quiet') {
      const script = join(this.dir, 'quiet.cjs');
      writeFileSync(script, QUIET_AGENT);
      this.agent = `${JSON.stringify(process.execPath)} ${JSON.stringify(script)} {taskDir}`;
    } else {
      this.agent = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} sim {taskDir}`;
    }
  }

  /** The dashboard's environment: this workspace's HOME and state, no AUTODECK_* from outside. */
  env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: join(this.dir, 'home'),
      XDG_STATE_HOME: join(this.dir, 'state'),
      XDG_CONFIG_HOME: join(this.dir, 'config'),
      XDG_CACHE_HOME: join(this.dir, 'cache'),
    };
    for (const k of Object.keys(env)) if (k.startsWith('AUTODECK_') || k === 'NO_COLOR' || k === 'TMUX' || k === 'TMUX_PANE') delete env[k];
    return env;
  }

  /** The dashboard's argv (after `node`). */
  dashboardArgs(extra: string[] = []): string[] {
    return [BIN, '--root', this.root, '--db', this.db, '--agent', this.agent, ...extra];
  }

  /** Every loop row, read through a read-only connection as another process would. */
  rows(): LoopState[] {
    return this.loops.read();
  }

  /** Every agent pid seen in the rows so far. */
  get agentPids(): ReadonlySet<number> {
    return this.loops.agentPids;
  }

  closeReader(): void {
    this.loops.close();
  }

  /** Agents seen so far that are still alive. */
  liveAgents(): number[] {
    return [...this.agentPids].filter(alive);
  }

  /** SIGKILLs every agent seen that is still alive; returns how many. */
  killAgents(): number {
    const left = this.liveAgents();
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch { /* gone */ }
    }
    return left.length;
  }

  /**
   * Writes a valid signal the way an agent does (a temp file, then a rename) and returns
   * performance.now() from just before the write.
   */
  writeSignal(taskDir: string, signal: Omit<Signal, 'timestamp'>): number {
    const full: Signal = { ...signal, timestamp: new Date().toISOString() };
    const text = `${JSON.stringify(full)}\n`;
    const t0 = performance.now();
    writeFileSync(join(taskDir, SIGNAL_TMP_FILE), text);
    renameSync(join(taskDir, SIGNAL_TMP_FILE), join(taskDir, SIGNAL_FILE));
    return t0;
  }

  remove(): void {
    this.closeReader();
    if (this.removed) return;
    this.removed = true;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
