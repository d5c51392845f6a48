import { printableLine } from '../format/bounded.js';

/** One bad setting. `source` is a flag (`--timeout`), an environment name, or a config file path. */
export interface SettingError {
  /** The setting (or unknown key) at fault; empty when the whole file is at fault. */
  setting: string;
  source: string;
  message: string;
}

/**
 * One line naming the setting and where it came from (bad settings stop the
 * program with one clear line):
 *   autodeck: --max-iterations: 0 is out of range (1..1000)
 *   autodeck: maxIterations in /p/.autodeck.json: "x" is not a number
 */
export function formatSettingError(e: SettingError): string {
  const message = e.message.replace(/\s*\n\s*/g, ' ');
  // Flags and variables name the setting themselves; a file needs the key spelled out.
  const named = e.setting === '' || e.source.startsWith('--') || e.source.startsWith('AUTODECK_');
  // A key or value from a file (a cloned project's) is shown, never obeyed by the terminal.
  return printableLine(named ? `autodeck: ${e.source}: ${message}` : `autodeck: ${e.setting} in ${e.source}: ${message}`);
}
