import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseHostEntry, parseHostList, parseHostSpec, withFileOptions } from '../../src/hosts/spec.js';
import { commonOptions, controlArgv, controlSocket, execArgv, masterPid, remoteCommand, remoteLine, remoteWord, terminalArgv, type SshConfig } from '../../src/hosts/ssh.js';
import { controlDirFor, ensureControlDir, ControlDirError } from '../../src/hosts/controlDir.js';
import { lastLine, runCall } from '../../src/hosts/call.js';
import { HOSTILE_PATHS } from '../helpers/hostile.js';

// Host names, ssh's argv and the remote command line, built without a network. Where a
// POSIX shell reads what we build, a real /bin/sh reads it here.


/** What sh makes of a command line: each word it would pass to a program. */
function shWords(commandLine: string): string[] {
  const out = execFileSync('/bin/sh', ['-c', `set -- ${commandLine}; printf '%s\\0' "$@"`], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: '/home/u' } });
  return out.split('\0').slice(0, -1);
}

const CFG: SshConfig = { command: ['ssh', '-F', '/cfg/ssh config'], controlDir: '/run/user/1/autodeck-ssh', connectTimeoutSeconds: 8, aliveIntervalSeconds: 10, persistSeconds: 60 };

describe('host specs', () => {
  it('reads names, users, ports and IPv6 addresses', () => {
    expect(parseHostSpec('gpu')).toEqual({ ok: true, value: { label: 'gpu', destination: 'gpu', port: undefined } });
    expect(parseHostSpec('alice@gpu.example.com')).toEqual({ ok: true, value: { label: 'alice@gpu.example.com', destination: 'alice@gpu.example.com', port: undefined } });
    expect(parseHostSpec('alice@gpu:2222')).toEqual({ ok: true, value: { label: 'alice@gpu:2222', destination: 'alice@gpu', port: 2222 } });
    expect(parseHostSpec('[::1]:2200')).toEqual({ ok: true, value: { label: '[::1]:2200', destination: '::1', port: 2200 } });
    expect(parseHostSpec('bob@[fe80::1%eth0]')).toMatchObject({ ok: true, value: { destination: 'bob@fe80::1%eth0' } });
  });

  it('refuses what ssh would read as an option or a second word, and "local"', () => {
    for (const bad of ['', '-oProxyCommand=touch x', 'a b', 'a\nb', 'local', 'LOCAL', 'gpu:0', 'gpu:70000', 'gpu:x', 'a@-b', '[::1', 'x;y', '$(id)', "it's"]) {
      const r = parseHostSpec(bad);
      expect(r.ok, bad).toBe(false);
    }
    expect(parseHostSpec('-oProxyCommand=x')).toMatchObject({ message: expect.stringContaining('must not start with "-"') });
  });

  it('reads the settings-file form, with an autodeck path and roots on that host', () => {
    expect(parseHostEntry({ name: 'me@box:2222', label: 'box', autodeck: '~/bin/autodeck', roots: ['/srv/AiTasks'] })).toEqual({
      ok: true, value: { label: 'box', destination: 'me@box', port: 2222, autodeck: '~/bin/autodeck', roots: ['/srv/AiTasks'] },
    });
    expect(parseHostEntry({ name: 'box', autodeck: 'relative/autodeck' })).toMatchObject({ ok: false });
    expect(parseHostEntry({ name: 'box', colour: 'red' })).toMatchObject({ ok: false, message: expect.stringContaining('"colour"') });
    expect(parseHostEntry({ name: 'box', label: 'local' })).toMatchObject({ ok: false });
    expect(parseHostEntry(3)).toMatchObject({ ok: false });
  });

  it('takes a list (or a comma-separated string), each label once', () => {
    expect(parseHostList('gpu, build')).toMatchObject({ ok: true, value: [{ label: 'gpu' }, { label: 'build' }] });
    expect(parseHostList(['gpu', { name: 'x', label: 'gpu' }])).toMatchObject({ ok: false, message: expect.stringContaining('twice') });
    expect(parseHostList({ gpu: 1 })).toMatchObject({ ok: false });
  });

  it('gives a host named on the command line what the settings file says of it', () => {
    const files = [{ label: 'gpu', destination: 'me@gpu', port: 2222, autodeck: '/opt/autodeck' }];
    expect(withFileOptions([{ label: 'me@gpu:2222', destination: 'me@gpu', port: 2222 }], files)).toEqual([{ label: 'gpu', destination: 'me@gpu', port: 2222, autodeck: '/opt/autodeck' }]);
    expect(withFileOptions([{ label: 'other', destination: 'other' }], files)).toEqual([{ label: 'other', destination: 'other' }]);
  });
});

describe('ssh argv', () => {
  it('never prompts, bounds the connection and shares one per host in the private folder', () => {
    const o = commonOptions(CFG, { destination: 'gpu' });
    expect(o).toEqual(expect.arrayContaining(['BatchMode=yes', 'ConnectTimeout=8', 'ServerAliveInterval=10', 'ControlMaster=auto', 'ControlPersist=60']));
    const socket = controlSocket(CFG, { destination: 'gpu' });
    expect(socket).toMatch(/^\/run\/user\/1\/autodeck-ssh\/[0-9a-f]{20}$/);
    expect(o).toContain(`ControlPath=${socket}`);
    // one per host and port, the same for every autodeck of the user
    expect(controlSocket(CFG, { destination: 'gpu', port: 2222 })).not.toBe(socket);
    expect(controlSocket({ ...CFG }, { destination: 'gpu' })).toBe(socket);
    expect(commonOptions({ ...CFG, controlDir: '/tmp/a%b' }, { destination: 'gpu' }).find((w) => w.startsWith('ControlPath='))).toMatch(/^ControlPath=\/tmp\/a%%b\//);
  });

  it('puts the destination after "--", the port as -p, the remote line as one word', () => {
    const argv = execArgv(CFG, { destination: 'me@gpu', port: 2222 }, 'exec x');
    expect(argv.slice(0, 3)).toEqual(['ssh', '-F', '/cfg/ssh config']);
    expect(argv.slice(-6)).toEqual(['-T', '-p', '2222', '--', 'me@gpu', 'exec x']);
    expect(terminalArgv(CFG, { destination: 'gpu' }, 'tmux')).toEqual(expect.arrayContaining(['-t', '--', 'gpu', 'tmux']));
    expect(terminalArgv(CFG, { destination: 'gpu' }, 'tmux')).not.toContain('-T');
    expect(controlArgv(CFG, { destination: 'gpu', port: 22 }, 'check').slice(-5)).toEqual(['-O', 'check', '-p', '22', '--', 'gpu'].slice(-5));
  });

  it('reads the master pid from -O check', () => {
    expect(masterPid('Master running (pid=4242)\r\n')).toBe(4242);
    expect(masterPid('Control socket connect(/x): Connection refused')).toBeUndefined();
  });
});

describe('the remote command line', () => {
  it('brings every hostile path to the program as one word, and runs nothing in it', () => {
    const line = remoteLine(['prog', ...HOSTILE_PATHS]);
    expect(shWords(line)).toEqual(['prog', ...HOSTILE_PATHS]);
  });

  it('keeps ~/ meaning the remote home, and only there', () => {
    expect(shWords(remoteWord('~/bin/my autodeck'))).toEqual(['/home/u/bin/my autodeck']);
    expect(shWords(remoteWord('/x/~/y'))).toEqual(['/x/~/y']);
    expect(shWords(remoteWord('~'))).toEqual(['~']);
  });

  it('puts the program\'s folder first on PATH and execs it with its words', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autodeck-remote-'));
    try {
      const bin = join(dir, "it's bin $(x)");
      mkdirSync(bin);
      // a program that prints its PATH's first folder and its words, one per line
      writeFileSync(join(bin, 'autodeck'), '#!/bin/sh\nprintf "%s\\n" "${PATH%%:*}"\nprintf "[%s]\\n" "$@"\n');
      chmodSync(join(bin, 'autodeck'), 0o755);
      const line = remoteCommand({ path: join(bin, 'autodeck'), pathDir: bin }, ['stop', '--force', ...HOSTILE_PATHS.slice(0, 8)]);
      const out = execFileSync('/bin/sh', ['-c', line], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' }, cwd: dir });
      expect(out).toBe(`${bin}\n${['stop', '--force', ...HOSTILE_PATHS.slice(0, 8)].map((w) => `[${w}]`).join('\n')}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the control folder', () => {
  it('is the runtime folder when short, else /tmp/autodeck-ssh-UID', () => {
    expect(controlDirFor({ XDG_RUNTIME_DIR: '/run/user/1000' }, 1000)).toBe('/run/user/1000/autodeck-ssh');
    expect(controlDirFor({ XDG_RUNTIME_DIR: `/very/long/${'x'.repeat(50)}` }, 1000)).toBe('/tmp/autodeck-ssh-1000');
    expect(controlDirFor({ XDG_RUNTIME_DIR: 'relative' }, 7)).toBe('/tmp/autodeck-ssh-7');
    expect(controlDirFor({}, 7)).toBe('/tmp/autodeck-ssh-7');
  });

  it('is made 0700, tightened when too open, refused when a symlink or another user\'s', () => {
    const base = mkdtempSync(join(tmpdir(), 'autodeck-ctl-'));
    try {
      const dir = join(base, 'c');
      ensureControlDir(dir);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      chmodSync(dir, 0o755);
      ensureControlDir(dir);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      symlinkSync(dir, join(base, 'link'));
      expect(() => ensureControlDir(join(base, 'link'))).toThrow(ControlDirError);
      expect(() => ensureControlDir(dir, (process.getuid?.() ?? 0) + 1)).toThrow(/another user/);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('a call with a deadline', () => {
  it('gives the exit code and the output', async () => {
    const r = await runCall(['/bin/sh', '-c', 'echo out; echo err >&2; exit 3'], { deadlineMs: 20_000 });
    expect(r).toMatchObject({ code: 3, stdout: 'out\n', stderr: 'err\n', timedOut: false });
  });

  it('kills a call that hangs at its deadline, output so far kept', async () => {
    const r = await runCall(['/bin/sh', '-c', 'echo started; exec sleep 600'], { deadlineMs: 300 });
    expect(r.timedOut).toBe(true);
    expect(r.code).toBeNull();
    expect(r.stdout).toBe('started\n');
  });

  it('reports a program that cannot start', async () => {
    const r = await runCall(['/nonexistent/ssh'], { deadlineMs: 5_000 });
    expect(r.code).toBeNull();
    expect(r.stderr).toMatch(/ENOENT/);
  });

  it('keeps the last line of a complaint', () => {
    expect(lastLine('Warning: x\r\nssh: connect to host h port 22: Connection refused\r\n\n')).toBe('ssh: connect to host h port 22: Connection refused');
    expect(lastLine('')).toBe('');
  });
});
