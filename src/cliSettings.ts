import { EXIT } from './commands/context.js';
import type { Settings } from './config/schema.js';
import { startupMark } from './trace.js';

/**
 * A command's settings (flags over environment over files), and for the commands
 * that start agents (the dashboard: `command` undefined) the agent profiles of the settings
 * files checked. A bad one is written as its one line; its exit code comes back instead.
 * Shared by the full CLI and the dashboard bundle's own start (src/entries/dashboard.ts).
 */
export async function commandSettings(flags: Record<string, unknown>, command: string | undefined, cwd: string): Promise<{ settings: Settings } | { exit: number }> {
  const { resolveSettings, formatSettingError, AGENT_PROFILES } = await import('./config/settings.js');
  const { value: settings, errors } = resolveSettings({ flags, env: process.env, cwd });
  startupMark('cli: settings resolved');
  if (errors.length > 0) {
    process.stderr.write(`${formatSettingError(errors[0]!)}\n`);
    return { exit: EXIT.usage };
  }
  if (command === 'run' || command === 'demo' || command === 'serve' || command === undefined) {
    const { resolveProfile } = await import('./agents/userProfiles.js');
    const profileError = AGENT_PROFILES.flatMap((name) => resolveProfile(name, settings.profiles).errors)[0];
    if (profileError) {
      process.stderr.write(`autodeck: ${profileError} (settings file)\n`);
      return { exit: EXIT.usage };
    }
  }
  return { settings };
}
