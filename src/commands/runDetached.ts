import { Writable } from 'node:stream';
import { childProcess } from '../lazy.js';
import { EXIT, line, type CommandContext } from './context.js';

/**
 * `autodeck run --detach TASK_DIR...`: the loops start as with `run`, in a process of its
 * own session (no terminal, no ssh connection: a hangup does not reach it), and this one
 * returns once they have started, with what `run` said while starting (a refusal, a
 * conflict) and its exit code. This is how a dashboard starts a loop on another host: the
 * loop lives there, not in the ssh call.
 */

/** Set in the supervising process's environment: it reports back over its IPC channel. */
const CHILD_MARK = 'AUTODECK_DETACHED_RUN';

type Report = { kind: 'line'; text: string } | { kind: 'started'; loops: number };


function report(r: Report): void {
  if (process.connected) process.send!(r);
}

/**
 * For the supervising half of a `run --detach` (undefined in any other process): stderr
 * that goes back to the starting process while it listens, and nowhere once it has gone
 * (nothing reads this process's output), and what tells it the loops have started.
 */
export function detachedChild(env: NodeJS.ProcessEnv = process.env): { stderr: NodeJS.WritableStream; stdout: NodeJS.WritableStream; started: (loops: number) => void } | undefined {
  if (env[CHILD_MARK] !== '1' || typeof process.send !== 'function') return undefined;
  // not handed on to the agents
  delete env[CHILD_MARK];
  let pending = '';
  const stderr = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      pending += chunk.toString();
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        report({ kind: 'line', text: pending.slice(0, nl) });
        pending = pending.slice(nl + 1);
      }
      done();
    },
  });
  const stdout = new Writable({ write: (_c, _e, done) => done() });
  return {
    stderr,
    stdout,
    started: (loops) => {
      report({ kind: 'started', loops });
      if (process.connected) process.disconnect();
    },
  };
}

/** The starting half: the same command without --detach, in its own session, until it says its loops started or it ends. */
export function runDetached(
  ctx: CommandContext,
  argv: readonly string[] = process.argv.slice(1),
  startedLine: (pid: number | undefined, loops: number) => string = (pid, loops) => `autodeck: ${loops} loop${loops === 1 ? '' : 's'} started, supervised in the background by pid ${pid}`,
): Promise<number> {
  const [script, ...words] = argv;
  const args = words.filter((w) => w !== '--detach');
  return new Promise((resolve) => {
    const child = childProcess().spawn(process.execPath, [script!, ...args], {
      detached: true,
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      env: { ...process.env, [CHILD_MARK]: '1' },
      cwd: ctx.cwd,
    });
    let settled = false;
    const settle = (code: number): void => {
      if (settled) return;
      settled = true;
      resolve(code);
    };
    // Its exit counts once its last words have been read: when the channel is closed too.
    let exitCode: number | undefined;
    let disconnected = false;
    child.on('disconnect', () => {
      disconnected = true;
      if (exitCode !== undefined) settle(exitCode);
    });
    child.on('message', (m: Report) => {
      if (m.kind === 'line') line(ctx.stderr, m.text);
      else if (m.kind === 'started') {
        line(ctx.stderr, startedLine(child.pid, m.loops));
        child.unref();
        settle(EXIT.ok);
      }
    });
    child.on('error', (err) => {
      line(ctx.stderr, `autodeck: cannot start the background supervisor: ${err.message}`);
      settle(EXIT.other);
    });
    child.on('exit', (code) => {
      exitCode = code ?? EXIT.other;
      if (disconnected) settle(exitCode);
    });
  });
}
