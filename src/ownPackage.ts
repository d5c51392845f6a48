import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of the autodeck package this code belongs to, found upwards from this file:
 * it runs from src/, from dist/src/ and from the bundles in dist/cli/, at different depths.
 */
export function ownPackageDir(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && packageName(pkg) === 'autodeck') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the autodeck package this command belongs to');
    dir = up;
  }
}

export function ownVersion(): string {
  return (JSON.parse(readFileSync(join(ownPackageDir(), 'package.json'), 'utf8')) as { version: string }).version;
}

function packageName(path: string): unknown {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown }).name;
  } catch {
    return undefined;
  }
}
