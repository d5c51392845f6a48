#!/usr/bin/env bash
# What a user does first: install the published package globally and run it. Packs this
# checkout (prepack builds it), installs the tarball with `npm install -g` into a throwaway
# prefix under a clean HOME, then runs `autodeck --version`, `--help` and the demo headless
# from there. The native modules build from source, as on a user's machine; only npm's
# download cache and its `nodedir` (where this machine keeps Node's headers) are shared.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache=$(npm config get cache 2>/dev/null)
nodedir=$(npm config get nodedir 2>/dev/null || true)
[ "$nodedir" = "undefined" ] && nodedir=""
# the machine's own npm settings (its CA file, say) live in the global npmrc, which npm
# would otherwise look for under the throwaway prefix
globalconfig=$(npm config get globalconfig 2>/dev/null)
tgz=$(npm pack --silent --pack-destination "$work" 2>/dev/null | tail -n 1)
echo "packed $tgz ($(du -k "$work/$tgz" | cut -f1) KiB)"
mkdir -p "$work/home" "$work/prefix"
clean=(env -i "PATH=$work/prefix/bin:$PATH" "HOME=$work/home" "npm_config_cache=$cache" "npm_config_globalconfig=$globalconfig" "npm_config_update_notifier=false" "npm_config_fetch_retries=1")
[ -n "$nodedir" ] && clean+=("npm_config_nodedir=$nodedir")
start=$(date +%s)
"${clean[@]}" timeout 900 npm install -g --prefix "$work/prefix" --no-audit --no-fund --loglevel=error "$work/$tgz"
echo "npm install -g took $(( $(date +%s) - start )) s"
bin="$work/prefix/bin/autodeck"
[ -x "$bin" ] || { echo "FAIL: no autodeck on the global PATH"; exit 1; }
want=$(node -p 'require("./package.json").version')
got=$(cd "$work" && "${clean[@]}" autodeck --version)
[ "$got" = "$want" ] || { echo "FAIL: autodeck --version printed '$got', want '$want'"; exit 1; }
(cd "$work" && "${clean[@]}" autodeck --help) | grep -q 'autodeck help COMMAND' || { echo "FAIL: --help"; exit 1; }
(cd "$work" && "${clean[@]}" autodeck run --help) | grep -q 'autodeck run TASK_DIR' || { echo "FAIL: run --help"; exit 1; }
demo_flags=()
(cd "$work" && "${clean[@]}" autodeck demo --help 2>/dev/null) | grep -q -- '--fast' && demo_flags=(--fast)
set +e
out=$(cd "$work" && "${clean[@]}" timeout 300 autodeck demo "${demo_flags[@]}" </dev/null 2>&1)
rc=$?
set -e
echo "$out" | tail -n 9
# the demo's own outcomes: five complete, one at its limit, one blocked (exit 1: not all complete)
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { echo "FAIL: autodeck demo exited $rc"; exit 1; }
done=$(echo "$out" | grep -cE '^[a-z0-9-]+: complete' || true)
[ "$done" -ge 3 ] || { echo "FAIL: the demo completed $done loops (want at least 3)"; exit 1; }
echo "1 passed, 0 failed"
