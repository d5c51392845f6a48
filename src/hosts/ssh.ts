import { sha1Hex, shellQuote } from '../lazy.js';
import type { HostEntry } from './spec.js';

/**
 * The argv of every ssh call and the remote command line it carries, built without running
 * anything. ssh hands its command to the remote user's login shell as one line, so each
 * remote word is quoted for a POSIX shell (shell-quote): a module path with spaces, quotes,
 * `$(…)` or a leading `-` reaches the remote autodeck as one word, and nothing in it runs.
 */

/** How this process runs ssh: the program and its options, the shared connection's place, its timers. */
export interface SshConfig {
  /** The ssh program and options of the user's own (`sshCommand`, e.g. `ssh -F ~/.ssh/other`). */
  command: readonly string[];
  /** The private folder the connection sockets live in (0700, see controlDir.ts). */
  controlDir: string;
  /** How long to wait for the TCP connection and the key exchange. */
  connectTimeoutSeconds: number;
  /** A probe every so often on a quiet connection, so a dead network is noticed. */
  aliveIntervalSeconds: number;
  /** How long the shared connection stays up after its last call. */
  persistSeconds: number;
}

export const SSH_DEFAULTS = { connectTimeoutSeconds: 8, aliveIntervalSeconds: 10, persistSeconds: 60 } as const;

/**
 * The shared connection's socket for a host: named from the host and the ssh command, so
 * every autodeck of this user shares it, and this side knows the file (to find a dead one).
 */
export function controlSocket(cfg: Pick<SshConfig, 'command' | 'controlDir'>, host: Pick<HostEntry, 'destination' | 'port'>): string {
  return `${cfg.controlDir}/${sha1Hex(JSON.stringify([cfg.command, host.destination, host.port ?? null])).slice(0, 20)}`;
}

/** Options of every call: never a prompt, bounded connect, one shared connection per host. */
export function commonOptions(cfg: SshConfig, host: Pick<HostEntry, 'destination' | 'port'>): string[] {
  return [
    '-o', 'BatchMode=yes',
    '-o', `ConnectTimeout=${cfg.connectTimeoutSeconds}`,
    '-o', `ServerAliveInterval=${cfg.aliveIntervalSeconds}`,
    '-o', 'ServerAliveCountMax=2',
    '-o', 'ControlMaster=auto',
    // ssh expands % in the path: a literal one is doubled
    '-o', `ControlPath=${controlSocket(cfg, host).replaceAll('%', '%%')}`,
    '-o', `ControlPersist=${cfg.persistSeconds}`,
  ];
}

const portArgs = (host: Pick<HostEntry, 'port'>): string[] => (host.port !== undefined ? ['-p', String(host.port)] : []);

/** One command on the host, no terminal (its output is read by autodeck). */
export function execArgv(cfg: SshConfig, host: Pick<HostEntry, 'destination' | 'port'>, remote: string): string[] {
  return [...cfg.command, ...commonOptions(cfg, host), '-T', ...portArgs(host), '--', host.destination, remote];
}

/** A command given the user's terminal (attach): a remote terminal of its own. */
export function terminalArgv(cfg: SshConfig, host: Pick<HostEntry, 'destination' | 'port'>, remote: string): string[] {
  return [...cfg.command, ...commonOptions(cfg, host), '-t', ...portArgs(host), '--', host.destination, remote];
}

/**
 * A question to the shared connection's master process (`check`, `exit`): local, no network.
 * With the same options as the calls, so ssh works out the same socket.
 */
export function controlArgv(cfg: SshConfig, host: Pick<HostEntry, 'destination' | 'port'>, op: 'check' | 'exit'): string[] {
  return [...cfg.command, ...commonOptions(cfg, host), '-O', op, ...portArgs(host), '--', host.destination];
}

/** `Master running (pid=1234)`: the master's pid, when `-O check` says it. */
export function masterPid(checkOutput: string): number | undefined {
  const m = /Master running \(pid=(\d+)\)/.exec(checkOutput);
  return m ? Number(m[1]) : undefined;
}

/** How the remote autodeck is run: its path and the folder put first on PATH (where node is, for nvm-style installs). */
export interface RemoteProgram {
  path: string;
  /** Put before the login shell's PATH; undefined: none. */
  pathDir?: string | undefined;
}

/**
 * One word for the remote POSIX shell. A path the user wrote with `~/` keeps its meaning
 * there (`"$HOME"/…`): quoting would make the `~` literal.
 */
export function remoteWord(word: string): string {
  const { quote } = shellQuote();
  if (word.startsWith('~/')) return `"$HOME"/${quote([word.slice(2)])}`;
  return quote([word]);
}

/**
 * The remote command line: the program's folder first on PATH (a login shell run by ssh has
 * no nvm/mise/asdf set-up), then the program and its words, each quoted.
 */
export function remoteCommand(program: RemoteProgram, args: readonly string[]): string {
  const words = [program.path, ...args].map(remoteWord).join(' ');
  const path = program.pathDir ? `PATH=${remoteWord(program.pathDir)}:"$PATH"; export PATH; ` : '';
  return `${path}exec ${words}`;
}

/** A plain remote command line (the probe, tmux): every word quoted. */
export function remoteLine(words: readonly string[]): string {
  return words.map(remoteWord).join(' ');
}
