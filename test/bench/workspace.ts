import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LoopRows, type LoopState } from './loopRows.js';

export type { LoopState } from './loopRows.js';
import { alive } from './proc.js';

/** This checkout's CLI (the bench runs from dist/test/bench/); BENCH_AUTODECK_BIN: another build's, to compare. */
export const BIN = process.env.BENCH_AUTODECK_BIN || fileURLToPath(new URL('../../../bin/autodeck.js', import.meta.url));
const SIM_AGENT = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} sim {taskDir}`;

/** The simulated agent sits idle this long before its first step: it never writes a signal of its own. */
const HANG_SECONDS = 3600;


export interface StopReport {
  /** How the supervisor ended: 'SIGINT', 'second SIGINT (force)', 'SIGKILL' or 'already exited'. */
  how: string;
  exitCode: number | null;
  seconds: number;
  /** Agents that outlived the supervisor and had to be killed by the bench. */
  leftoverAgents: number;
  agents: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * A throwaway project with `loops` idle task modules and ONE `autodeck run` process
 * supervising them all, with its own database, HOME and XDG folders.
 */
export class BenchWorkspace {
  readonly dir: string;
  readonly root: string;
  readonly db: string;
  readonly modules: string[] = [];
  private child: ChildProcess | undefined;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stderr = '';
  private readonly loops: LoopRows;
  private removed = false;

  /** `heartbeatSeconds`: how often the supervisor captures each agent's screen. */
  constructor(loops: number, private readonly heartbeatSeconds = 60) {
    this.dir = realpathSync(mkdtempSync(join(tmpdir(), 'autodeck-bench-')));
    mkdirSync(join(this.dir, '.git'));
    mkdirSync(join(this.dir, 'home'));
    this.root = join(this.dir, 'AiTasks');
    this.db = join(this.dir, 'state.db');
    this.loops = new LoopRows(this.db);
    for (let i = 1; i <= loops; i++) {
      const name = `bench-${String(i).padStart(2, '0')}`;
      const m = join(this.root, name);
      mkdirSync(m, { recursive: true });
      writeFileSync(join(m, '.index.json'), JSON.stringify({ status: 'planning', title: name }));
      writeFileSync(join(m, '.target.md'), `# Target\n\nBenchmark module ${name}: stay idle.\n`);
      writeFileSync(join(m, '.sim.json'), JSON.stringify({ stepSeconds: 0.05, hang: { atIteration: 1, seconds: HANG_SECONDS } }));
      this.modules.push(realpathSync(m));
    }
  }

  /** Starts `autodeck run` over every module. */
  start(): void {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: join(this.dir, 'home'),
      XDG_STATE_HOME: join(this.dir, 'state'),
      XDG_CONFIG_HOME: join(this.dir, 'config'),
      NO_COLOR: '1',
    };
    for (const k of Object.keys(env)) if (k.startsWith('AUTODECK_')) delete env[k];
    const args = [
      BIN, 'run', ...this.modules, '--db', this.db, '--root', this.root, '--agent', SIM_AGENT,
      '--heartbeat', String(this.heartbeatSeconds), '--max-iterations', '1000', '--timeout', '600',
      // The agents idle on purpose: keep the heartbeat capturing without ever calling it a stall.
      '--stall-threshold', '100000', '--step-timeout', '600',
      // A stop asks the hanging agents to stop; they never look, so SIGTERM them after 1 s.
      '--grace', '1',
    ];
    const child = spawn(process.execPath, args, { cwd: this.dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    child.stderr!.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-4000);
    });
    this.exited = new Promise((resolve) => {
      child.on('close', (code, signal) => {
        this.exit = { code, signal };
        resolve();
      });
    });
  }

  /** The supervisor's process id. */
  get pid(): number {
    const pid = this.child?.pid;
    if (pid === undefined) throw new Error('the supervisor is not started');
    return pid;
  }

  /** Fails with the supervisor's last words when it is no longer running. */
  assertRunning(): void {
    if (!this.exit) return;
    const how = this.exit.signal ? `signal ${this.exit.signal}` : `exit code ${this.exit.code}`;
    const tail = this.stderr.trim().split('\n').slice(-10).join('\n');
    throw new Error(`autodeck run ended unexpectedly (${how}); its last output:\n${tail || '(none)'}`);
  }

  /** Every loop row, read through a read-only connection as another process would. */
  rows(): LoopState[] {
    return this.loops.read();
  }

  /** Every agent pid seen in the rows so far. */
  get agentPids(): ReadonlySet<number> {
    return this.loops.agentPids;
  }

  /** Waits until every loop is `running` with a live agent. */
  async waitRunning(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.assertRunning();
      const rows = this.rows();
      const ready = rows.filter((r) => r.status === 'running' && r.agentPid !== null && alive(r.agentPid));
      if (ready.length === this.modules.length) return;
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${this.modules.length} loops to be running ` +
          `(${ready.length} are; statuses: ${rows.map((r) => r.status).join(', ') || 'no rows'})`);
      }
      await sleep(50);
    }
  }

  /** Fails unless every loop is still running its first agent (nothing restarted or stopped). */
  assertUndisturbed(): void {
    this.assertRunning();
    const rows = this.rows();
    const bad = rows.filter((r) => r.status !== 'running' || r.restarts !== 0 || r.agentPid === null || !alive(r.agentPid));
    if (rows.length !== this.modules.length || bad.length > 0) {
      throw new Error(`the loops did not stay idle and running: ${rows.length} rows, ` +
        `${bad.map((r) => `${r.taskDir}: ${r.status}, ${r.restarts} restarts`).join('; ')}`);
    }
  }

  /**
   * Stops the loops as a person would (Ctrl-C), escalating with bounded waits, then makes
   * sure no agent outlives the supervisor and removes the folder.
   */
  async stop(): Promise<StopReport> {
    const started = Date.now();
    this.rows(); // last look at the agents' ids
    this.closeReader();
    let how = 'already exited';
    const child = this.child;
    if (child && !this.exit) {
      const steps: [NodeJS.Signals, string, number][] = [
        ['SIGINT', 'SIGINT', 20_000], ['SIGINT', 'second SIGINT (force)', 10_000], ['SIGKILL', 'SIGKILL', 5_000],
      ];
      for (const [signal, name, waitMs] of steps) {
        how = name;
        child.kill(signal);
        if (await Promise.race([this.exited.then(() => true), sleep(waitMs).then(() => false)])) break;
      }
    }
    // Agents are the supervisor's children; once it is gone they must be too.
    const deadline = Date.now() + 5000;
    while ([...this.agentPids].some(alive) && Date.now() < deadline) await sleep(50);
    const leftovers = [...this.agentPids].filter(alive);
    for (const pid of leftovers) process.kill(pid, 'SIGKILL');
    this.remove();
    return {
      how, exitCode: this.exit?.code ?? null, seconds: (Date.now() - started) / 1000,
      leftoverAgents: leftovers.length, agents: this.agentPids.size,
    };
  }

  /** Last resort when the bench itself is interrupted: kill by id, remove the folder. */
  killNow(): void {
    this.closeReader();
    if (this.child && !this.exit) this.child.kill('SIGKILL');
    for (const pid of this.agentPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    this.remove();
  }

  private closeReader(): void {
    this.loops.close();
  }

  private remove(): void {
    if (this.removed) return;
    this.removed = true;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
