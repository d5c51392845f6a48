/**
 * What is wrong with a state database that cannot be used, in a person's words, and what to
 * do: a file that is no SQLite database or a damaged one, one that cannot be opened or
 * written, one a newer autodeck wrote. Undefined: not such a problem (a locked database,
 * say, is tried again; other errors are reported as they are). Pure: codes and messages in.
 */
export interface DbProblem {
  /** `is damaged (SQLite: database disk image is malformed)` */
  what: string;
  /** `move it aside ... and autodeck starts a new one` */
  fix: string;
}

import { quote } from 'shell-quote';

const NEWER = /^the database was written by a newer autodeck/;

export function dbProblem(err: unknown, path: string): DbProblem | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  const said = `(${err.message.split('\n')[0]})`;
  const aside = `move it aside (mv ${quote([path, `${path}.broken`])}) and autodeck starts a new one`;
  const access = 'check that its folder exists and that you may read and write both, or choose another --db';
  if (NEWER.test(err.message)) return { what: err.message.replace(/^the database /, 'was '), fix: 'update autodeck, or choose another --db' };
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_NOTADB') return { what: `is not a SQLite database ${said}`, fix: aside };
  if (code.startsWith('SQLITE_CORRUPT')) return { what: `is damaged ${said}`, fix: aside };
  if (code.startsWith('SQLITE_CANTOPEN')) return { what: `cannot be opened ${said}`, fix: access };
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') return { what: `cannot be written ${said}`, fix: access };
  if (code === 'EACCES' || code === 'EPERM' || code === 'ENOTDIR' || code === 'EROFS') return { what: `cannot be created ${said}`, fix: access };
  return undefined;
}

/** The one line for a problem with the database at `path`. */
export function dbProblemLine(p: DbProblem, path: string): string {
  return `autodeck: the state database ${path} ${p.what}; ${p.fix}. autodeck doctor checks it`;
}
