import { isAbsolute, relative, resolve } from 'node:path';
import { createModule, moduleNameError, titleError } from '../protocol/create.js';
import { CliError, EXIT, line, type CommandContext } from './context.js';

const USAGE = 'autodeck new NAME [--title T]';

/** A path as the user would type it from `cwd`: relative when inside, else absolute. */
function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** A path quoted for the hint when a shell would split it (printed, never run). */
function hintWord(path: string): string {
  return /^[A-Za-z0-9._/-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

/**
 * `autodeck new NAME [--title T]`: a task module under the first root, status draft, with
 * a `.target.md` template to fill before a loop may start.
 */
export function newModule(ctx: CommandContext, now: Date = new Date()): number {
  // one NAME: the command table checks the words (src/cli/commands.ts)
  const [name] = ctx.args;
  if (name === undefined) throw new CliError(`autodeck new: name the task module: ${USAGE}`);
  const nameError = moduleNameError(name);
  if (nameError) throw new CliError(`autodeck new: ${nameError}`);
  const given = ctx.flags.title;
  const title = typeof given === 'string' ? given : name;
  const badTitle = titleError(title);
  if (badTitle) throw new CliError(`autodeck new: ${badTitle}`);
  const root = ctx.settings.roots[0];
  if (root === undefined) throw new CliError('autodeck new: no root to create the module in; pass --root DIR');

  const result = createModule(resolve(ctx.cwd, root), name, title, now);
  const dir = shown(result.dir, ctx.cwd);
  if (!result.ok) throw new CliError(`autodeck new: ${dir} already exists; pick another name`, EXIT.usage);
  for (const file of result.files) line(ctx.stdout, `created ${dir}/${file}`);
  line(ctx.stdout, `next: edit ${dir}/.target.md, then \`autodeck run ${hintWord(dir)}\` or press s on it in the dashboard`);
  return EXIT.ok;
}
