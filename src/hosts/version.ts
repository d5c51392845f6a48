import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let known: string | undefined;

/** This autodeck's version, from its package.json (found from this file, in src/, dist/ or a bundle). */
export function ownVersion(): string {
  if (known !== undefined) return known;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        const data = JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown; version?: unknown };
        if (data.name === 'autodeck' && typeof data.version === 'string') return (known = data.version);
      } catch { /* not ours: keep looking */ }
    }
    const up = dirname(dir);
    if (up === dir) return (known = '0.0.0');
    dir = up;
  }
}
