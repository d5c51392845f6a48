import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const top = fileURLToPath(new URL('../..', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx)$/.test(name) ? [p] : [];
  });
}

const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g;

describe('layer boundary', () => {
  it('src/ imports neither React, Ink nor components/', () => {
    const offenders: string[] = [];
    for (const file of files(join(top, 'src'))) {
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        if (/^(react|ink|@inkjs\/ui|ink-testing-library)(\/|$)/.test(spec!) || /(^|\/)components\//.test(spec!)) {
          offenders.push(`${relative(top, file)} imports ${spec}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
