import { existsSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gitTopLevel, homeDir } from '../paths.js';
import { SKILL_PATH } from '../skill/autodeckAuto.js';

/** Where `init` writes: a project's files, or the user's Claude settings for every project. */
export interface InitTarget {
  kind: 'project' | 'user';
  /** The project's top folder, or the home folder. */
  dir: string;
  settingsPath: string;
  skillPath: string;
  /** A project's .gitignore; the user's settings have none. */
  gitignorePath: string | undefined;
}

/** What makes a folder outside git a project: another version control, a manifest, autodeck's or Claude Code's own files. */
export const PROJECT_MARKERS = ['.hg', '.jj', '.svn', 'package.json', 'pyproject.toml', 'Cargo.toml', 'go.mod', 'pom.xml', 'AiTasks', '.autodeck.json', '.claude'] as const;

const real = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

export function userTarget(env: NodeJS.ProcessEnv): InitTarget {
  const home = homeDir(env);
  return { kind: 'user', dir: home, settingsPath: join(home, '.claude', 'settings.json'), skillPath: join(home, SKILL_PATH), gitignorePath: undefined };
}

/**
 * The project `cwd` is in: its git top level, else `cwd` when it has a project marker. The
 * home folder is never a project (its `.claude/settings.json` is the user's settings for
 * every project), even when it is a git repository of dotfiles: that takes `--user`.
 */
export function initTarget(cwd: string, env: NodeJS.ProcessEnv, user: boolean): InitTarget | { refusal: string } {
  if (user) return userTarget(env);
  const home = real(homeDir(env));
  const top = gitTopLevel(cwd);
  const dir = top ?? (PROJECT_MARKERS.some((m) => existsSync(join(cwd, m))) ? resolve(cwd) : undefined);
  const forUser = 'to write them to your user settings for every project instead: autodeck init --user';
  if (dir !== undefined && real(dir) === home) {
    return { refusal: `autodeck init: ${dir} is your home folder, whose .claude/settings.json is your user settings for every project; run it at your project's top (cd ~/src/my-project), or ${forUser}` };
  }
  if (dir === undefined && real(cwd) === home) {
    return { refusal: `autodeck init: ${resolve(cwd)} is your home folder, whose .claude/settings.json is your user settings for every project; run it at your project's top (cd ~/src/my-project), or ${forUser}` };
  }
  if (dir === undefined) {
    return { refusal: `autodeck init: ${resolve(cwd)} is not in a git repository or a project folder (none of .git, ${PROJECT_MARKERS.slice(0, 7).join(', ')} found); run it at your project's top (cd ~/src/my-project), or ${forUser}` };
  }
  return { kind: 'project', dir, settingsPath: join(dir, '.claude', 'settings.json'), skillPath: join(dir, SKILL_PATH), gitignorePath: join(dir, '.gitignore') };
}
