import { lstatSync, readFileSync, rmSync } from 'node:fs';
import type { CallOptions, CallResult } from './call.js';
import { controlArgv, controlSocket, masterPid, type SshConfig } from './ssh.js';
import type { HostEntry } from './spec.js';

/** A question to the connection's master is local: it answers at once, or it is stuck. */
export const CONTROL_DEADLINE_MS = 3000;

export type Caller = (argv: readonly string[], opts: CallOptions) => Promise<CallResult>;

/** What keeping the shared connection needs of the system: files and processes (tests give their own). */
export interface ConnectionSystem {
  /**
   * The socket file's identity (device, inode, change time): a new connection makes a new
   * file, which may get the inode a dead master's file just gave back. Undefined: none.
   */
  identity(path: string): string | undefined;
  remove(path: string): void;
  /** The process's command line, or undefined when it cannot be read (gone, or no /proc). */
  commandLine(pid: number): string | undefined;
  kill(pid: number): void;
}

export const realSystem: ConnectionSystem = {
  identity(path) {
    try {
      const st = lstatSync(path, { bigint: true });
      return `${st.dev}:${st.ino}:${st.ctimeNs}`;
    } catch {
      return undefined;
    }
  },
  remove: (path) => rmSync(path, { force: true }),
  commandLine(pid) {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      return undefined;
    }
  },
  kill: (pid) => process.kill(pid, 'SIGKILL'),
};

/**
 * The one ssh connection kept open to a host (ControlMaster). Its master process can die
 * and leave its socket file, or hang (stopped, or stuck on a dead link) with its socket still
 * accepting: then every later call through it waits for ever, which ConnectTimeout does not
 * cover. After a call that ran out of time the master is asked `-O check` (with its own
 * deadline): no answer, it is stuck: killed (the pid an earlier check gave, and only when its
 * command line names our socket) and its socket removed; refused, its socket is a dead
 * one's: removed; running, the connection is let go all the same (`-O exit`): a link that
 * went dead under a live master. Either way the next call makes a new connection.
 */
export class SharedConnection {
  /** The master's pid as `-O check` said it, and its socket file's identity then. */
  private master: { pid: number | undefined; socket: string } | undefined;

  constructor(
    private readonly cfg: SshConfig,
    private readonly host: Pick<HostEntry, 'destination' | 'port'>,
    private readonly call: Caller,
    private readonly system: ConnectionSystem = realSystem,
  ) {}

  get socket(): string {
    return controlSocket(this.cfg, this.host);
  }

  /** After a call that went through: the master's pid, asked once per connection (ssh may have made a new one by itself). */
  async learnMaster(): Promise<void> {
    const socket = this.system.identity(this.socket);
    if (socket === undefined || this.master?.socket === socket) return;
    const r = await this.call(controlArgv(this.cfg, this.host, 'check'), { deadlineMs: CONTROL_DEADLINE_MS });
    this.master = { pid: masterPid(`${r.stdout}\n${r.stderr}`), socket };
  }

  /** Lets the connection go after a call ran out of time; says what it found. */
  async replace(): Promise<'exited' | 'stale' | 'stuck' | 'none'> {
    const checked = this.system.identity(this.socket);
    const known = this.master?.socket === checked ? this.master?.pid : undefined;
    this.master = undefined;
    if (checked === undefined) return 'none';
    const check = await this.call(controlArgv(this.cfg, this.host, 'check'), { deadlineMs: CONTROL_DEADLINE_MS });
    // Only the file that was checked: a look meanwhile may have made a new master, whose socket stays.
    const removeChecked = (): void => {
      if (this.system.identity(this.socket) === checked) this.system.remove(this.socket);
    };
    // ssh did not run, or this side is closing: nothing learnt about the master
    if (!check.timedOut && check.code === null) return 'none';
    if (check.timedOut) {
      if (known !== undefined && this.system.commandLine(known)?.includes(this.socket)) {
        try {
          this.system.kill(known);
        } catch { /* gone meanwhile */ }
      }
      removeChecked();
      return 'stuck';
    }
    if (check.code !== 0) {
      removeChecked();
      return 'stale';
    }
    const exit = await this.call(controlArgv(this.cfg, this.host, 'exit'), { deadlineMs: CONTROL_DEADLINE_MS });
    if (exit.timedOut) removeChecked();
    return 'exited';
  }
}
