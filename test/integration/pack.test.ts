import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';

// What `npm pack` would publish: the program and nothing of the workshop. (dist/ is built
// by `npm test` before the tests run; prepack would build it again.)

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface PackFile { path: string }

function packedFiles(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return ((JSON.parse(out) as { files: PackFile[] }[])[0]!.files).map((f) => f.path).sort();
}

describe('npm pack', () => {
  const files = packedFiles();

  it('ships the bin, the CLI bundles, the dashboard bundle, README and LICENSE', () => {
    for (const f of ['bin/autodeck.js', 'dist/cli/cli.js', 'dist/cli/hook.cjs', 'dist/cli/permission.cjs', 'dist/cli/status.cjs', 'bin/package.json', 'dist/dashboard.bundle.js', 'README.md', 'LICENSE', 'package.json']) {
      expect(files, f).toContain(f);
    }
  });

  it('ships no tests, sources, CI, patches, source maps or build logs', () => {
    const stray = files.filter((f) => /^(test|src|components|\.ci|patches|docs)\/|^dist\/(test|components|src)\/|\.map$|\.ts$|\.log$|tsconfig|vitest/.test(f));
    expect(stray).toEqual([]);
  });

  it('needs no dev dependency to install: no install-time script, and the bundle carries the patched Ink', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string>; dependencies: Record<string, string> };
    for (const hook of ['preinstall', 'install', 'postinstall']) expect(pkg.scripts[hook], hook).toBeUndefined();
    for (const dev of ['ink', 'react', '@inkjs/ui', 'patch-package']) expect(pkg.dependencies[dev], dev).toBeUndefined();
    // every bare import left in the built code that ships is a runtime dependency or a Node built-in
    const shipped = files.filter((f) => /\.c?js$/.test(f)).map((f) => readFileSync(`${ROOT}${f}`, 'utf8'));
    // import/export statements (a `} from` line ends a long one), import() and require() calls
    const specifier = /^(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^./'"][^'"]*)['"]|^\}\s*from\s*['"]([^./'"][^'"]*)['"]|^import\s*['"]([^./'"][^'"]*)['"]|\bimport\(\s*['"]([^./'"][^'"]*)['"]\s*\)|\brequire\(\s*['"]([^./'"][^'"]*)['"]\s*\)/gm;
    const external = new Set(shipped.flatMap((code) => [...code.matchAll(specifier)].map((m) => m.slice(1).find(Boolean)!)));
    expect(external).toContain('better-sqlite3');
    for (const name of external) {
      if (name.startsWith('node:') || builtinModules.includes(name.split('/')[0]!)) continue;
      expect(Object.keys(pkg.dependencies), name).toContain(name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]);
    }
  });
});
