import { constants, closeSync, fstatSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { dirname, join } from 'node:path';
import { xdgStateHome } from '../paths.js';

/** `$XDG_STATE_HOME/autodeck/api-token`. */
export function apiTokenPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgStateHome(env), 'autodeck', 'api-token');
}

/** A token file that may not be used (wrong mode, a symlink, empty, unreadable). */
export class TokenFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenFileError';
  }
}

/** What a token may look like: one line of visible ASCII, so it fits an HTTP header as is. */
const TOKEN_SHAPE = /^[\x21-\x7e]{16,1024}$/;

/**
 * The bearer token of the REST API: read from `path`, or created there on first use
 * (32 random bytes as hex, mode 0600). A file that others could read, a symlink, an
 * empty file or one owned by another user is refused with a one-line TokenFileError:
 * a token others can read is no secret.
 */
export function loadOrCreateToken(path: string): string {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const created = createToken(path);
  return created ?? readToken(path);
}

/**
 * Writes a new token; undefined when the file exists already. The token is written to a
 * private temporary file first and then linked into place, so a second process never
 * sees the file half-written (a link, like `open(wx)`, fails when the name is taken).
 */
function createToken(path: string): string | undefined {
  const token = randomBytes(32).toString('hex');
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${token}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
    return token;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw new TokenFileError(`autodeck: cannot create the API token file ${path}: ${(err as Error).message}`);
  } finally {
    try {
      unlinkSync(tmp);
    } catch { /* gone already */ }
  }
}

function readToken(path: string): string {
  let fd: number;
  try {
    // O_NOFOLLOW: a symlink fails here (ELOOP) instead of being followed.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new TokenFileError(`autodeck: the API token file ${path} is a symlink; remove it and a new token is created`);
    throw new TokenFileError(`autodeck: cannot read the API token file ${path}: ${code ?? (err as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new TokenFileError(`autodeck: the API token file ${path} is not a regular file`);
    if ((st.mode & 0o077) !== 0) {
      throw new TokenFileError(`autodeck: the API token file ${path} is accessible to other users (mode ${(st.mode & 0o777).toString(8)}); run chmod 600 on it or remove it`);
    }
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) throw new TokenFileError(`autodeck: the API token file ${path} belongs to another user`);
    if (st.size > 4096) throw new TokenFileError(`autodeck: the API token file ${path} is too large to be a token`);
    const token = readFileSync(fd, 'utf8').trim();
    if (token === '') throw new TokenFileError(`autodeck: the API token file ${path} is empty; remove it and a new token is created`);
    if (!TOKEN_SHAPE.test(token)) {
      throw new TokenFileError(`autodeck: the API token file ${path} does not hold a token (one line of 16 to 1024 visible ASCII characters)`);
    }
    return token;
  } finally {
    closeSync(fd);
  }
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * Whether `given` equals `expected`, in time that does not depend on where they differ
 * (nor on the length of either: both are hashed to 32 bytes first).
 */
export function tokensEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m?.[1];
}
