// Runs `serve` from the build the way src/cli.ts would, for as long as src/cli.ts does not
// dispatch `serve` itself: `node test/helpers/serve-main.mjs [--json] --api-port 0 --db X ...`.
// Settings flags are `--flag value` pairs (`--root` repeatable); nothing else is accepted.
import { resolveSettings, formatSettingError } from '../../dist/src/config/settings.js';
import { serve } from '../../dist/src/commands/serve.js';
import { CliError } from '../../dist/src/commands/context.js';

const flags = {};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const name = argv[i].slice(2).replace(/-([a-z])/g, (_, c) => c.toUpperCase());
  if (name === 'json') {
    flags.json = true;
    continue;
  }
  const value = argv[++i];
  if (name === 'root') (flags.root ??= []).push(value);
  else flags[name] = value;
}

const cwd = process.cwd();
const { value: settings, errors } = resolveSettings({ flags, env: process.env, cwd });
if (errors.length > 0) {
  process.stderr.write(`${formatSettingError(errors[0])}\n`);
  process.exit(2);
}
serve({ args: [], flags, settings, stdout: process.stdout, stderr: process.stderr, cwd }).then(
  (code) => {
    process.exitCode = code;
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (err) => {
    process.stderr.write(`${err instanceof CliError ? err.message : `autodeck: ${err?.message ?? err}`}\n`);
    process.exit(err instanceof CliError ? err.code : 1);
  },
);
