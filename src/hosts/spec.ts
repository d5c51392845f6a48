/**
 * The hosts a dashboard reads besides this machine: how a person names one (`--host NAME`,
 * the `hosts` list of a settings file) and what ssh is given for it. Pure: no ssh here.
 */

/** This machine's name in the HOST column, filters and `status --json --host`. */
export const LOCAL_HOST = 'local';

/** One host to read over ssh. */
export interface HostEntry {
  /** What the dashboard calls it (HOST column, filter, row keys); unique. */
  label: string;
  /** What ssh connects to: a `~/.ssh/config` alias, `host` or `user@host` (never starting with `-`). */
  destination: string;
  /** A port given as `host:port`; undefined: ssh's own choice (its config, else 22). */
  port?: number | undefined;
  /** The autodeck program on that host; undefined: looked for in the usual places. */
  autodeck?: string | undefined;
  /** Roots on that host (its own paths); undefined: the host's own settings. */
  roots?: string[] | undefined;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

// A user and a host as ssh and DNS write them; `%` for an IPv6 zone. Nothing a shell or
// ssh would read as an option or a second word.
const USER = /^[A-Za-z0-9._][A-Za-z0-9._-]*$/;
const HOST = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;
const IPV6 = /^[0-9A-Fa-f:.]+(%[A-Za-z0-9_.-]+)?$/;

/**
 * `gpu`, `alice@gpu.example.com`, `alice@gpu:2222`, `[::1]:2222` as a host to connect to.
 * Refused: spaces, control characters, a leading `-` (ssh would take it for an option),
 * `local` (this machine), a port outside 1..65535.
 */
export function parseHostSpec(text: string): Parsed<Omit<HostEntry, 'label'> & { label: string }> {
  const spec = text.trim();
  const bad = (why: string): Parsed<never> => ({ ok: false, message: `${JSON.stringify(text)} is not a host: ${why}` });
  if (spec === '') return bad('empty');
  if (spec.toLowerCase() === LOCAL_HOST) return bad(`"${LOCAL_HOST}" is this machine, always shown unless --no-local`);
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f]/.test(spec)) return bad('no spaces or control characters');
  if (spec.startsWith('-')) return bad('it must not start with "-"');
  const at = spec.lastIndexOf('@');
  const user = at >= 0 ? spec.slice(0, at) : undefined;
  let rest = at >= 0 ? spec.slice(at + 1) : spec;
  if (user !== undefined && !USER.test(user)) return bad('write it as NAME, user@host or user@host:port');
  let port: number | undefined;
  let host: string;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) return bad('an IPv6 address is written [address] or [address]:port');
    host = rest.slice(1, close);
    rest = rest.slice(close + 1);
    if (!IPV6.test(host)) return bad('not an IPv6 address between the brackets');
    if (rest !== '') {
      if (!rest.startsWith(':')) return bad('after [address] only :port may follow');
      const p = parsePort(rest.slice(1));
      if (p === undefined) return bad('the port is a whole number from 1 to 65535');
      port = p;
    }
  } else {
    const colon = rest.indexOf(':');
    if (colon >= 0) {
      const p = parsePort(rest.slice(colon + 1));
      if (p === undefined) return bad('the port is a whole number from 1 to 65535 (write an IPv6 address as [address])');
      port = p;
      rest = rest.slice(0, colon);
    }
    host = rest;
    if (!HOST.test(host)) return bad('write it as NAME, user@host or user@host:port');
  }
  const destination = `${user !== undefined ? `${user}@` : ''}${host}`;
  return { ok: true, value: { label: spec, destination, port } };
}

function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= 65535 ? n : undefined;
}

const LABEL = /^[^\s\x00-\x1f\x7f]{1,64}$/;

/**
 * A host as a settings file or a flag gives it: a spec string, or an object
 * `{ "name": SPEC, "label"?: TEXT, "autodeck"?: PATH, "roots"?: [PATH...] }`. Paths stay as
 * written: they are the other host's, not this one's.
 */
export function parseHostEntry(raw: unknown): Parsed<HostEntry> {
  if (typeof raw === 'string') return parseHostSpec(raw);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, message: `${JSON.stringify(raw) ?? String(raw)} is not a host: give "NAME" or {"name": "NAME", "autodeck": "PATH"}` };
  }
  const o = raw as Record<string, unknown>;
  const unknownKeys = Object.keys(o).filter((k) => !['name', 'label', 'autodeck', 'roots'].includes(k));
  if (unknownKeys.length > 0) return { ok: false, message: `a host has name, label, autodeck and roots, not ${unknownKeys.map((k) => JSON.stringify(k)).join(', ')}` };
  if (typeof o.name !== 'string') return { ok: false, message: 'a host needs "name": its ssh name (an alias of ~/.ssh/config, host, user@host or user@host:port)' };
  const spec = parseHostSpec(o.name);
  if (!spec.ok) return spec;
  const entry: HostEntry = { ...spec.value };
  if (o.label !== undefined) {
    if (typeof o.label !== 'string' || !LABEL.test(o.label) || o.label.toLowerCase() === LOCAL_HOST) {
      return { ok: false, message: `host ${o.name}: "label" is a short name without spaces, not "${LOCAL_HOST}"` };
    }
    entry.label = o.label;
  }
  if (o.autodeck !== undefined) {
    if (typeof o.autodeck !== 'string' || !o.autodeck.startsWith('/') && !o.autodeck.startsWith('~/')) {
      return { ok: false, message: `host ${o.name}: "autodeck" is the program's absolute path on that host (or ~/...)` };
    }
    entry.autodeck = o.autodeck;
  }
  if (o.roots !== undefined) {
    const ok = Array.isArray(o.roots) && o.roots.length > 0 && o.roots.every((r) => typeof r === 'string' && (r.startsWith('/') || r.startsWith('~/')));
    if (!ok) return { ok: false, message: `host ${o.name}: "roots" is a list of absolute paths on that host (or ~/...)` };
    entry.roots = [...(o.roots as string[])];
  }
  return { ok: true, value: entry };
}

/** A list of hosts, each label once. */
export function parseHostList(raw: unknown): Parsed<HostEntry[]> {
  const list = typeof raw === 'string' ? raw.split(',').map((s) => s.trim()).filter((s) => s !== '') : raw;
  if (!Array.isArray(list)) return { ok: false, message: 'hosts are a list: ["gpu", {"name": "me@box:2222", "autodeck": "/opt/bin/autodeck"}]' };
  const out: HostEntry[] = [];
  for (const item of list) {
    const e = parseHostEntry(item);
    if (!e.ok) return e;
    if (out.some((h) => h.label === e.value.label)) return { ok: false, message: `host ${JSON.stringify(e.value.label)} is named twice` };
    out.push(e.value);
  }
  return { ok: true, value: out };
}

/**
 * A host named on the command line is the settings file's host of that name (or address),
 * with its autodeck path, roots and label, so `--host gpu` need not repeat them.
 */
export function withFileOptions(given: readonly HostEntry[], fromFiles: readonly HostEntry[]): HostEntry[] {
  return given.map((g) => fromFiles.find((f) => f.label === g.label || (f.destination === g.destination && f.port === g.port)) ?? g);
}
