import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway project: a git-like top level, an AiTasks root, its own HOME and state. */
export interface Workspace {
  dir: string;
  root: string;
  db: string;
  env: NodeJS.ProcessEnv;
  /** Creates a task module under the root and returns its real path. */
  module(name: string, opts?: { status?: string; scenario?: Record<string, unknown>; target?: string }): string;
  cleanup(): void;
}

export function makeWorkspace(prefix = 'autodeck-test-'): Workspace {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  mkdirSync(join(dir, '.git'));
  const root = join(dir, 'AiTasks');
  mkdirSync(root);
  mkdirSync(join(dir, 'home'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: join(dir, 'home'),
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    NO_COLOR: '1',
  };
  for (const k of Object.keys(env)) if (k.startsWith('AUTODECK_')) delete env[k];
  return {
    dir,
    root,
    db: join(dir, 'state.db'),
    env,
    module(name, opts = {}) {
      const m = join(root, name);
      mkdirSync(m, { recursive: true });
      writeFileSync(join(m, '.index.json'), JSON.stringify({ status: opts.status ?? 'planning', title: name }));
      writeFileSync(join(m, '.target.md'), opts.target ?? `# Target\n\nDo ${name}.\n`);
      if (opts.scenario) writeFileSync(join(m, '.sim.json'), JSON.stringify(opts.scenario));
      return realpathSync(m);
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
