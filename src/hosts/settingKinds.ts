import { argv, type Kind } from '../config/kinds.js';
import { parseHostList, type HostEntry } from './spec.js';

/**
 * Hosts as a setting: `--host NAME` (repeatable), `AUTODECK_HOSTS=a,b`, or a settings
 * file's `"hosts": ["gpu", {"name": "me@box:2222", "autodeck": "/opt/bin/autodeck"}]`.
 */
export const hostList: Kind<HostEntry[]> = {
  arg: 'HOST',
  multiple: true,
  parse(raw) {
    const r = parseHostList(raw);
    return r.ok ? { ok: true, value: r.value } : { ok: false, message: r.message };
  },
};

/** The ssh program and its options: an argv like `agent`'s, its errors naming ssh. */
export const sshArgv: Kind<string[]> = {
  arg: 'COMMAND',
  parse(raw, ctx) {
    const r = argv.parse(raw, ctx);
    return r.ok ? r : { ok: false, message: r.message.replace('the agent command is empty', 'the ssh command is empty').replace('the agent is started', 'ssh is started') };
  },
};

const YES = ['true', 'yes', 'on', '1'];
const NO = ['false', 'no', 'off', '0'];

/** On or off: a boolean (a file, `--no-local`), or yes/no, true/false, on/off, 1/0. */
export const onOff: Kind<boolean> = {
  arg: 'yes|no',
  negatable: true,
  parse(raw) {
    if (typeof raw === 'boolean') return { ok: true, value: raw };
    const v = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
    if (v !== undefined && YES.includes(v)) return { ok: true, value: true };
    if (v !== undefined && NO.includes(v)) return { ok: true, value: false };
    return { ok: false, message: `${JSON.stringify(raw) ?? String(raw)} is not yes or no` };
  },
};
