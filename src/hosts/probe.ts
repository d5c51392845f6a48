import type { RemoteProgram } from './ssh.js';

/**
 * Finding autodeck on a host. ssh runs commands in a login shell that read no profile: nvm,
 * fnm, mise, asdf or volta set nothing up there, so autodeck (and node) are often "not
 * installed" on its PATH although they are. The probe looks in the usual places by their
 * paths, runs each program found with `--version` (with its own folder first on PATH, where
 * such installs keep node), and prints what answered; this side picks one.
 */

/** Oldest autodeck whose `status --json --events-since N --modules` this side reads. */
export const MIN_REMOTE_VERSION = '0.1.0';

const MARK = 'autodeck-candidate';

/**
 * POSIX sh, run as `/bin/sh -c SCRIPT autodeck-probe [PATH...]` (so a zsh login shell's
 * glob rules do not apply). Paths given: only those. One line per program found:
 * `autodeck-candidate<TAB>path<TAB>folder<TAB>version` (version empty when it did not answer).
 */
export const PROBE_SCRIPT = `
cand() {
  [ -f "$1" ] && [ -x "$1" ] || return 0
  d=\${1%/*}
  v=$(PATH="$d:$PATH" "$1" --version </dev/null 2>/dev/null | head -n 1) || v=
  printf '${MARK}\\t%s\\t%s\\t%s\\n' "$1" "$d" "$v"
}
home() { case "$1" in "~/"*) printf '%s/%s' "$HOME" "\${1#\\~/}" ;; *) printf '%s' "$1" ;; esac; }
if [ $# -gt 0 ]; then
  for c in "$@"; do cand "$(home "$c")"; done
  exit 0
fi
for p in "$NPM_CONFIG_PREFIX" "$npm_config_prefix"; do [ -n "$p" ] && cand "$p/bin/autodeck"; done
if [ -f "$HOME/.npmrc" ]; then
  p=$(sed -n 's/^[[:space:]]*prefix[[:space:]]*=[[:space:]]*//p' "$HOME/.npmrc" | head -n 1)
  [ -n "$p" ] && cand "$(home "$p")/bin/autodeck"
fi
for c in "$HOME/.local/bin/autodeck" "$HOME/bin/autodeck" "$HOME/.npm-global/bin/autodeck" "$HOME/.npm-packages/bin/autodeck" \\
  "$HOME/.volta/bin/autodeck" "\${ASDF_DATA_DIR:-$HOME/.asdf}/shims/autodeck" "$HOME/.local/share/mise/shims/autodeck" \\
  "\${N_PREFIX:-/usr/local}/bin/autodeck" /usr/local/bin/autodeck /opt/homebrew/bin/autodeck /home/linuxbrew/.linuxbrew/bin/autodeck /usr/bin/autodeck \\
  "\${NVM_DIR:-$HOME/.nvm}"/versions/node/*/bin/autodeck "$HOME"/.local/share/fnm/node-versions/*/installation/bin/autodeck \\
  "$HOME"/.fnm/node-versions/*/installation/bin/autodeck "$HOME"/.local/share/mise/installs/node/*/bin/autodeck \\
  "$HOME"/.asdf/installs/nodejs/*/bin/autodeck; do
  cand "$c"
done
c=$(command -v autodeck 2>/dev/null) && cand "$c"
exit 0
`;

/** The probe's words (`/bin/sh -c SCRIPT NAME PATHS...`), for remoteLine. */
export function probeWords(configured?: string): string[] {
  return ['/bin/sh', '-c', PROBE_SCRIPT, 'autodeck-probe', ...(configured ? [configured] : [])];
}

export interface Candidate {
  path: string;
  dir: string;
  /** What `--version` printed; '' when it did not answer. */
  version: string;
}

export function parseProbe(output: string): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const line of output.split('\n')) {
    const [mark, path, dir, version] = line.split('\t');
    if (mark !== MARK || !path || dir === undefined || seen.has(path)) continue;
    seen.add(path);
    out.push({ path, dir, version: (version ?? '').trim() });
  }
  return out;
}

/** `1.2.3` (a `v` before, a pre-release after are allowed) as numbers, or undefined. */
export function parseVersion(text: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** Negative when a < b, 0 when equal, positive when a > b; an unreadable version is the oldest. */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (!x || !y) return (x ? 1 : 0) - (y ? 1 : 0);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

export type Choice =
  | { ok: true; program: RemoteProgram; version: string }
  | { ok: false; kind: 'no-autodeck' | 'too-old'; message: string };

/**
 * The program to use: the newest that answered and is recent enough. Otherwise why not,
 * in one line: nothing found (where it looked), found but silent, or too old.
 */
export function chooseCandidate(found: readonly Candidate[], configured?: string): Choice {
  const answering = found.filter((c) => parseVersion(c.version));
  const usable = answering.filter((c) => compareVersions(c.version, MIN_REMOTE_VERSION) >= 0);
  if (usable.length > 0) {
    const best = usable.reduce((a, b) => (compareVersions(b.version, a.version) > 0 ? b : a));
    return { ok: true, program: { path: best.path, pathDir: best.dir }, version: parseVersion(best.version)!.join('.') };
  }
  if (answering.length > 0) {
    const newest = answering.reduce((a, b) => (compareVersions(b.version, a.version) > 0 ? b : a));
    return { ok: false, kind: 'too-old', message: `autodeck ${newest.version} at ${newest.path} is too old: ${MIN_REMOTE_VERSION} or later is needed there` };
  }
  if (found.length > 0) return { ok: false, kind: 'no-autodeck', message: `${found[0]!.path} did not answer --version (is node installed there?)` };
  if (configured) return { ok: false, kind: 'no-autodeck', message: `no autodeck at ${configured} (the host's "autodeck" setting)` };
  return { ok: false, kind: 'no-autodeck', message: 'autodeck is not installed there (looked in npm\'s prefix, ~/.local/bin, nvm, fnm, volta, mise, asdf, /usr/local/bin and PATH); set the host\'s "autodeck" path' };
}

/** What to say when the two sides run different versions (both recent enough): undefined when they match. */
export function versionNote(remote: string, local: string): string | undefined {
  return compareVersions(remote, local) === 0 ? undefined : `autodeck ${remote} there, ${local} here`;
}
