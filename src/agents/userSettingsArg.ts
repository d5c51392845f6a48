import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The object a user's own `claude --settings <file-or-json>` gives: JSON text when it
 * starts with `{`, else a file (relative to the agent's working folder). Throws one line.
 */
export function readUserSettingsArg(value: string, cwd: string): Record<string, unknown> {
  const text = value.trimStart().startsWith('{') ? value : readSettingsFile(resolve(cwd, value));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`not valid JSON (${(err as Error).message.split('\n')[0]})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
  return parsed as Record<string, unknown>;
}

function readSettingsFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
