import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SettingError } from './errors.js';
import { RESERVED_FILE_KEYS, SETTINGS_TABLE } from './schema.js';

/** A parsed config file: keys are setting names (camelCase). */
export interface ConfigFile {
  path: string;
  /** Relative paths in the file are relative to its folder, not to where autodeck runs. */
  dir: string;
  values: Record<string, unknown>;
}

export interface ReadResult {
  /** Undefined when the file does not exist or could not be used. */
  file?: ConfigFile;
  errors: SettingError[];
}

const squash = (s: string): string => s.toLowerCase().replace(/[-_]/g, '');

/** A likely meant setting for an unknown key: `timeout`, `max-iterations`, `maxIteration`. */
function suggest(key: string): string | undefined {
  const k = squash(key);
  const row = SETTINGS_TABLE.find((r) =>
    [r.name, r.flagKey, r.env].some((n) => {
      const s = squash(n);
      return s === k || (k.length >= 3 && (s.startsWith(k) || k.startsWith(s)));
    }),
  );
  return row?.name;
}

export function readConfigFile(path: string): ReadResult {
  const fileError = (message: string): ReadResult => ({ errors: [{ setting: '', source: path, message }] });
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { errors: [] };
    return fileError(`cannot read the config file (${code ?? (e as Error).message})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    return fileError(`not valid JSON (${(e as Error).message})`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return fileError('must hold a JSON object like {"maxIterations": 20}');
  }
  const values = data as Record<string, unknown>;
  const known = new Set<string>([...SETTINGS_TABLE.map((r) => r.name), ...RESERVED_FILE_KEYS]);
  const errors: SettingError[] = [];
  for (const key of Object.keys(values)) {
    if (known.has(key)) continue;
    const hint = suggest(key);
    errors.push({ setting: key, source: path, message: `unknown setting${hint ? ` (did you mean ${hint}?)` : ''}` });
  }
  return { file: { path, dir: dirname(path), values }, errors };
}
