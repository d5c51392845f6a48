import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { ownPackageDir } from '../../src/ownPackage.js';
import { waitFor } from './wait.js';

/** This checkout's bin, from the sources (tests) or from dist/ (the bench). */
const BIN = join(ownPackageDir(), 'bin', 'autodeck.js');

/**
 * "Another host" without another machine: an OpenSSH server of the test's own on a loopback
 * port, with a throwaway host key, one authorized key and a client config that trusts only
 * them. Logging in gives a session whose HOME is a second, empty home with autodeck
 * installed the way nvm leaves it (node and autodeck in one folder under ~/.nvm) and a PATH
 * that has neither: what a login shell run by ssh gets on a real build box. Its state
 * folder is the "remote" autodeck's.
 */

export const SSHD = '/usr/sbin/sshd';

/** Whether an sshd can be started here; the reason when not. */
export function sshdAvailable(): { ok: true } | { ok: false; reason: string } {
  if (!existsSync(SSHD)) return { ok: false, reason: `${SSHD} is not installed (apt-get install -y openssh-server)` };
  try {
    execFileSync('ssh', ['-V'], { stdio: 'ignore' });
  } catch {
    return { ok: false, reason: 'the ssh client is not installed' };
  }
  if (process.getuid?.() === 0 && !existsSync('/run/sshd')) {
    // sshd as root wants its privilege-separation folder (made by the service at boot)
    try {
      mkdirSync('/run/sshd', { mode: 0o755 });
    } catch (err) {
      return { ok: false, reason: `cannot make /run/sshd: ${(err as Error).message}` };
    }
  }
  return { ok: true };
}

/** Programs the remote login shell finds on its PATH: tmux and a few tools, never node or autodeck. */
const REMOTE_TOOLS = ['tmux', 'head', 'sed', 'cat', 'rm', 'mkdir', 'mkfifo', 'env', 'sleep', 'ls', 'id', 'kill', 'ps', 'sh', 'bash', 'dirname', 'basename', 'readlink', 'git'];

export interface RemoteHost {
  /** The ssh name of the host in `sshCommand`'s config. */
  name: string;
  port: number;
  /** `--ssh-command` for autodeck: ssh with the test's client config. */
  sshCommand: string;
  /** The remote autodeck's state: its HOME, database, roots. */
  home: string;
  db: string;
  root: string;
  /** Its private tmux server (`tmux -L`). */
  tmuxSocket: string;
  /** The environment a remote session gets (for running its autodeck directly in a check). */
  env: Record<string, string>;
  /** Where the remote autodeck is (the nvm-style folder). */
  autodeck: string;
  /** Makes a task module under the remote root; returns its path. */
  module(name: string, opts?: { scenario?: Record<string, unknown> }): string;
  /** The sshd listener's pid while it runs. */
  readonly sshdPid: number | undefined;
  /** Ends sshd and every session it has open (the host goes away). */
  stop(): Promise<void>;
  /** Starts sshd again on the same port (the host is back). */
  start(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Every process whose parent is `pid`, and theirs (Linux /proc). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch { /* gone */ }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/**
 * Sets up the remote side in `dir` (a test's workspace folder) and starts its sshd.
 * `settings`: the remote autodeck's own config file (its roots are added); `env`: more of
 * the login session's environment (values without spaces: sshd's SetEnv).
 */
export async function startRemoteHost(dir: string, opts: { settings?: Record<string, unknown>; name?: string; env?: Record<string, string> } = {}): Promise<RemoteHost> {
  const base = join(dir, 'remote');
  mkdirSync(base, { recursive: true });
  const key = (name: string): unknown => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'autodeck-test', '-f', join(base, name)]);
  key('host_key');
  key('user_key');
  writeFileSync(join(base, 'authorized_keys'), readFileSync(join(base, 'user_key.pub')));
  const port = await freePort();
  const home = join(base, 'home');
  const root = join(home, 'AiTasks');
  const rbin = join(base, 'bin');
  mkdirSync(root, { recursive: true });
  mkdirSync(join(home, '.git'));
  mkdirSync(rbin);
  for (const tool of REMOTE_TOOLS) {
    const at = ['/usr/bin', '/bin', '/usr/sbin', '/sbin'].map((d) => join(d, tool)).find((p) => existsSync(p));
    if (at) symlinkSync(at, join(rbin, tool));
  }
  // autodeck as nvm installs it: node and the program in one folder, on no PATH
  const nvmBin = join(home, '.nvm', 'versions', 'node', process.version, 'bin');
  mkdirSync(nvmBin, { recursive: true });
  symlinkSync(process.execPath, join(nvmBin, 'node'));
  symlinkSync(BIN, join(nvmBin, 'autodeck'));
  const tmuxSocket = `adt-remote-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const env: Record<string, string> = {
    HOME: home, PATH: rbin, XDG_STATE_HOME: join(home, '.local', 'state'), XDG_CONFIG_HOME: join(home, '.config'),
    AUTODECK_TMUX_SOCKET: tmuxSocket, LANG: 'C.UTF-8', NO_COLOR: '1', ...opts.env,
  };
  mkdirSync(join(env.XDG_CONFIG_HOME!, 'autodeck'), { recursive: true });
  writeFileSync(join(env.XDG_CONFIG_HOME!, 'autodeck', 'config.json'), JSON.stringify({
    roots: [root], agent: [process.execPath, BIN, 'sim', '{taskDir}'], heartbeatSeconds: 0.5, stallThreshold: 1000, ...opts.settings,
  }));
  writeFileSync(join(base, 'sshd_config'), [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(base, 'host_key')}`, `AuthorizedKeysFile ${join(base, 'authorized_keys')}`,
    // the throwaway files live under /tmp, which StrictModes refuses
    'StrictModes no', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'UsePAM no', 'PermitRootLogin prohibit-password',
    `PidFile ${join(base, 'sshd.pid')}`, 'LogLevel ERROR',
    `SetEnv ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')}`,
    '',
  ].join('\n'));
  const name = opts.name ?? 'testbox';
  writeFileSync(join(base, 'known_hosts'), `[127.0.0.1]:${port} ${readFileSync(join(base, 'host_key.pub'), 'utf8')}`);
  writeFileSync(join(base, 'ssh_config'), [
    `Host ${name}`, '  HostName 127.0.0.1', `  Port ${port}`, `  User ${userInfo().username}`, `  IdentityFile ${join(base, 'user_key')}`,
    '  IdentitiesOnly yes', `  UserKnownHostsFile ${join(base, 'known_hosts')}`, '  StrictHostKeyChecking yes', '  LogLevel ERROR', '',
  ].join('\n'));
  let sshd: ChildProcess | undefined;
  const host: RemoteHost = {
    name, port, home, root, tmuxSocket, env,
    get sshdPid() {
      return sshd?.exitCode === null ? sshd.pid : undefined;
    },
    db: join(env.XDG_STATE_HOME!, 'autodeck', 'state.db'),
    sshCommand: `ssh -F ${join(base, 'ssh_config')}`,
    autodeck: join(nvmBin, 'autodeck'),
    module(moduleName, mopts = {}) {
      const m = join(root, moduleName);
      mkdirSync(m, { recursive: true });
      writeFileSync(join(m, '.index.json'), JSON.stringify({ status: 'planning', title: moduleName }));
      writeFileSync(join(m, '.target.md'), `# Target\n\nDo ${moduleName}.\n`);
      if (mopts.scenario) writeFileSync(join(m, '.sim.json'), JSON.stringify(mopts.scenario));
      return m;
    },
    async start() {
      sshd = spawn(SSHD, ['-D', '-f', join(base, 'sshd_config'), '-E', join(base, 'sshd.log')], { stdio: 'ignore' });
      const child = sshd;
      await waitFor(async () => child.exitCode === null && (await accepting(port)), `sshd on port ${port} (log: ${join(base, 'sshd.log')})`, 20_000, 50);
    },
    async stop() {
      const child = sshd;
      sshd = undefined;
      if (!child?.pid || child.exitCode !== null) return;
      // the listener and every connection it serves: the host is gone, not just its door
      for (const pid of [child.pid, ...descendants(child.pid)]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch { /* gone */ }
      }
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r)));
    },
  };
  await host.start();
  return host;
}
